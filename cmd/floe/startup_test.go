package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
)

// Issue 27: start-up must not read every table. A catalog of 200,000
// tables, each observed, is started with every statement traced up to the
// first ready /readyz; none may scan a table that holds a row per table
// (tables, observations, search…) without a small LIMIT, and together they
// may return at most maxStartupRows of those tables' rows. The observations
// are loaded into memory once floe serves: the test holds that load until
// /readyz has answered, so readiness provably does not wait for it, then
// sees it finish.
func TestServeStartReadsNoTableRows(t *testing.T) {
	n := 200_000
	switch {
	case raceEnabled:
		n = 5_000 // the same shape; -race makes SQLite's work some 30× slower
	case testing.Short():
		n = 20_000
	}
	data := t.TempDir()
	seedCatalog(t, data, n)
	perTable := tablesOfRows(t, data, n)
	for _, want := range []string{"tables", "observations", "search_docs"} {
		if !perTable[want] {
			t.Fatalf("%s does not hold a row per table (%v): the seeding is not what this test reads", want, perTable)
		}
	}

	tr := newStartTrace()
	ctx, cancel := context.WithCancel(persist.WithTrace(context.Background(), tr.record))
	t0 := time.Now()
	srv := startServe(t, ctx, "--data", data)
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			if err := srv.wait(t); err != nil {
				t.Errorf("serve: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	srv.waitReady(t)
	toReady := time.Since(t0)
	startup := tr.markReady()
	loaded := int(srv.waitLog(t, "observations loaded")["observations"].(float64))
	t.Logf("%d tables: /readyz after %s (%d statements; the observations load held: %v), %d observations loaded %s after start",
		n, toReady.Round(time.Millisecond), len(startup), tr.loadHeld(), loaded, time.Since(t0).Round(time.Millisecond))
	if want := min(n, observe.DefaultCap); loaded != want {
		t.Errorf("the background load kept %d observations, want %d (the %d newest up to the cap)", loaded, want, n)
	}
	stop()

	db, err := persist.Open(context.Background(), persist.Options{Path: filepath.Join(data, "catalog.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows := 0
	for _, s := range startup {
		touched := tablesNamed(s.Query, perTable)
		if len(touched) == 0 {
			continue
		}
		for _, step := range planOf(t, db, s) {
			scanned, ok := strings.CutPrefix(step, "SCAN ")
			if !ok {
				continue
			}
			name := strings.Fields(scanned)[0]
			if tbl := touched[name]; tbl != "" && !smallLimit(s) {
				t.Errorf("start-up scans %s (%s) without a small LIMIT:\n%s", tbl, step, s.Query)
			}
		}
		if isRead(s.Query) {
			var got int
			if err := db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM (`+s.Query+`) counted`, s.Args...).Scan(&got); err != nil {
				t.Fatalf("counting the rows of %q: %v", s.Query, err)
			}
			rows += got
		}
	}
	if rows > maxStartupRows {
		t.Errorf("start-up read %d rows of the tables holding a row per table, want at most %d", rows, maxStartupRows)
	} else {
		t.Logf("start-up read %d rows of the tables holding a row per table", rows)
	}
}

// maxStartupRows bounds the per-table rows start-up may read: a few pages'
// worth, however large the catalog.
const maxStartupRows = 1_000

// startHoldLimit is how long the trace holds the observations load for
// /readyz; a start-up that waits for the load goes on after it, and the
// load is then one of start-up's statements, which the test refuses.
const startHoldLimit = 15 * time.Second

// startTrace records the statements floe serve runs until markReady.
type startTrace struct {
	mu      sync.Mutex
	ready   bool
	startup []persist.Statement
	held    bool
	release chan struct{} // closed by markReady
}

func newStartTrace() *startTrace { return &startTrace{release: make(chan struct{})} }

// record is the persist trace. The observations load — the read of the
// observations table that names no key — waits until /readyz has answered
// (or startHoldLimit).
func (tr *startTrace) record(s persist.Statement) {
	if strings.Contains(s.Query, "FROM observations") && !strings.Contains(s.Query, "WHERE") {
		tr.mu.Lock()
		hold := !tr.ready
		tr.held = tr.held || hold
		tr.mu.Unlock()
		if hold {
			select {
			case <-tr.release:
				return // after readiness: not start-up's
			case <-time.After(startHoldLimit):
			}
		}
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if !tr.ready {
		tr.startup = append(tr.startup, s)
	}
}

// markReady ends start-up, releases the observations load and returns
// start-up's statements.
func (tr *startTrace) markReady() []persist.Statement {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.ready = true
	close(tr.release)
	return tr.startup
}

func (tr *startTrace) loadHeld() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.held
}

// tablesOfRows names the tables of the catalog in data holding at least n
// rows: after seeding n tables, those with a row per table.
func tablesOfRows(t testing.TB, data string, n int) map[string]bool {
	t.Helper()
	ctx := context.Background()
	db, err := persist.Open(ctx, persist.Options{Path: filepath.Join(data, "catalog.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	out := map[string]bool{}
	for _, name := range names {
		var c int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM "`+name+`"`).Scan(&c); err != nil {
			t.Fatalf("count %s: %v", name, err)
		}
		if c >= n {
			out[name] = true
		}
	}
	return out
}

// fromClause finds the tables a statement names, with their aliases.
var fromClause = regexp.MustCompile(`(?i)\b(?:from|join|into|update)\s+([a-z_][a-z0-9_]*)(?:\s+(?:as\s+)?([a-z_][a-z0-9_]*))?`)

// notAlias are the words that may follow a table's name in place of an alias.
var notAlias = []string{"where", "join", "left", "inner", "cross", "on", "order", "group", "limit", "set", "values", "using", "natural", "union", "returning", "default", "select", "as"}

// tablesNamed maps each name under which the statement reads one of the
// per-table tables (its own, its alias) to that table.
func tablesNamed(query string, perTable map[string]bool) map[string]string {
	out := map[string]string{}
	for _, m := range fromClause.FindAllStringSubmatch(query, -1) {
		tbl := strings.ToLower(m[1])
		if !perTable[tbl] {
			continue
		}
		out[tbl] = tbl
		if alias := strings.ToLower(m[2]); alias != "" && !slices.Contains(notAlias, alias) {
			out[alias] = tbl
		}
	}
	return out
}

// planOf is SQLite's query plan of s, one step a line.
func planOf(t testing.TB, db *persist.DB, s persist.Statement) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+s.Query, s.Args...)
	if err != nil {
		t.Fatalf("plan of %q: %v", s.Query, err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, detail)
	}
	return steps
}

// limitClause is a statement's LIMIT, a number or a placeholder.
var limitClause = regexp.MustCompile(`(?i)\blimit\s+(\d+|\?)\s*(offset\s+\?)?\s*;?\s*$`)

// smallLimit reports a statement ending in a LIMIT of at most
// maxStartupRows (a placeholder's value is the last argument, or the one
// before an OFFSET's).
func smallLimit(s persist.Statement) bool {
	m := limitClause.FindStringSubmatch(s.Query)
	if m == nil {
		return false
	}
	if m[1] != "?" {
		n, err := strconv.Atoi(m[1])
		return err == nil && n <= maxStartupRows
	}
	i := len(s.Args) - 1
	if m[2] != "" {
		i--
	}
	if i < 0 {
		return false
	}
	n, err := strconv.ParseInt(fmt.Sprint(s.Args[i]), 10, 64)
	return err == nil && n <= maxStartupRows
}

// isRead reports a statement that returns rows: a SELECT or a WITH … SELECT.
func isRead(q string) bool {
	q = strings.ToUpper(strings.TrimSpace(q))
	return strings.HasPrefix(q, "SELECT") || strings.HasPrefix(q, "WITH")
}
