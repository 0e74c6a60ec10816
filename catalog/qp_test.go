package catalog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/floe/floe/persist"
)

// TestQueriesUseIndexes checks the hot queries' plans: a full scan of
// tables would make listings with 10,000 tables slow long before any test
// timed it.
func TestQueriesUseIndexes(t *testing.T) {
	s := newTestStore(t)
	contains := nameCond{sql: fmt.Sprintf(persist.SQLite().Contains, "name"), args: []any{"yyy"}}
	listWhere, listArgs := tableFilter(contains, "b", "ns", ListTablesOptions{ListOptions: ListOptions{After: "x"}, NameFilter: "yyy", Format: FormatLance}, true)
	cases := []struct {
		name  string
		query string
		args  []any
	}{
		{"list tables", `SELECT ` + tableColumns + ` FROM tables WHERE ` + listWhere + ` ORDER BY name LIMIT 10`, listArgs},
		{"count tables", `SELECT COUNT(*) FROM tables WHERE ` + listWhere, listArgs},
		{"declared run", `SELECT id, name, location FROM tables WHERE ` + listWhere + ` AND state = 'declared' AND format = 'LANCE' ORDER BY name LIMIT 10`, listArgs},
		{"written run", `SELECT name FROM tables WHERE ` + listWhere + ` AND state <> 'declared' ORDER BY name LIMIT 10`, listArgs},
		{"location users", `SELECT id FROM tables WHERE id <> ? AND (location = ? OR (location >= ? AND location < ?))`, []any{"i", "l", "l/", "l0"}},
		{"list all tables", `SELECT ` + tableColumns + ` FROM tables WHERE format = ? AND (bucket, namespace, name) > (?, ?, ?) ORDER BY bucket, namespace, name LIMIT 10`, []any{"ICEBERG", "a", "b", "c"}},
		{"namespace subtree", `SELECT COUNT(*) FROM namespaces WHERE bucket = ? AND name >= ? AND name < ?`, []any{"b", "a.", "a/"}},
		{"verify api key", `SELECT id FROM api_keys WHERE secret_hash = ?`, []any{[]byte("h")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			joined := queryPlan(t, s, tc.query, tc.args...)
			if want := map[string]string{"declared run": "tables_declared", "written run": "tables_written"}[tc.name]; want != "" && !strings.Contains(joined, want) {
				t.Errorf("plan does not use %s: %s", want, joined)
			}
			if strings.Contains(joined, "SCAN ") || strings.Contains(joined, "TEMP B-TREE") {
				t.Errorf("plan scans or sorts: %s", joined)
			}
		})
	}
}
