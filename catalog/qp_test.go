package catalog

import (
	"context"
	"testing"
)

func TestQueryPlans(t *testing.T) {
	s := newTestStore(t)
	_ = context.Background()
	for _, q := range []string{
		`SELECT ` + tableColumns + ` FROM tables WHERE bucket = 'a' AND namespace = 'b' AND state <> 'deregistered' ORDER BY name LIMIT 10`,
		`SELECT ` + tableColumns + ` FROM tables WHERE bucket = 'a' AND namespace = 'b' AND name > 'x' AND state <> 'deregistered' ORDER BY name LIMIT 10`,
		`SELECT COUNT(*) FROM tables WHERE bucket = 'a' AND namespace = 'b' AND state <> 'deregistered'`, `SELECT COUNT(*) FROM tables WHERE bucket = 'a' AND namespace = 'b' AND instr(name, 'x') > 0`,
		`SELECT id FROM tables WHERE id <> 'x' AND (location = 'a' OR (location >= 'a/' AND location < 'a0'))`,
		`SELECT ` + bucketColumns + ` FROM buckets b WHERE b.name > '' ORDER BY b.name LIMIT 10`,
		`SELECT ` + tableColumns + ` FROM tables WHERE format='ICEBERG' AND state <> 'deregistered' AND (bucket, namespace, name) > ('a','b','c') ORDER BY bucket, namespace, name LIMIT 10`,
	} {
		rows, err := s.db.Query(`EXPLAIN QUERY PLAN ` + q)
		if err != nil {
			t.Fatal(err)
		}
		t.Log(q)
		for rows.Next() {
			var id, parent, notused int
			var detail string
			rows.Scan(&id, &parent, &notused, &detail)
			t.Log("   ", detail)
		}
		rows.Close()
	}
}
