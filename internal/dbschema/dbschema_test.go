package dbschema_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func open(t *testing.T, path string) *persist.DB {
	t.Helper()
	db, err := persist.Open(context.Background(), persist.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func sqlitePath(t *testing.T) string { return filepath.Join(t.TempDir(), "catalog.db") }

// After migrating, SQLite and PostgreSQL hold the same tables, the same
// columns in each, and the same indexes (name, table, columns, uniqueness)
// for every owner. Types differ on purpose (BIGINT, BYTEA) and are not
// compared; implicit indexes behind primary keys and UNIQUE constraints are
// named differently by each backend and are left out.
func TestSQLiteAndPostgresSchemasMatch(t *testing.T) {
	ctx := context.Background()
	lite, pg := open(t, sqlitePath(t)), open(t, pgtest.DSN(t))
	for _, db := range []*persist.DB{lite, pg} {
		if err := dbschema.Migrate(ctx, db); err != nil {
			t.Fatalf("%s: %v", db.Dialect().Name, err)
		}
	}
	diff(t, "SQLite", sqliteShape(t, lite), "PostgreSQL", postgresShape(t, pg))
	for _, sc := range dbschema.All() {
		a, err := lite.Applied(ctx, sc.Owner)
		if err != nil || len(a) == 0 {
			t.Errorf("%s: nothing applied on SQLite (%v)", sc.Owner, err)
		}
	}
}

// Databases migrated by the code before migrations moved to one place
// upgrade in place: on SQLite with the catalog's 0009_sigv4_maintenance
// still recorded under its old name 0007_sigv4_maintenance, on PostgreSQL
// with each owner's postgres/ folder applied alone (the folder used to
// replace the root files). Migrating again runs nothing twice, and the
// result has the shape of a fresh database of the same backend.
func TestOldDatabasesUpgrade(t *testing.T) {
	ctx := context.Background()
	for _, b := range []struct {
		name string
		path func(*testing.T) string
		old  func(*testing.T, *persist.DB, persist.Schema)
	}{
		{"sqlite", sqlitePath, oldSQLite},
		{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }, oldPostgres},
	} {
		t.Run(b.name, func(t *testing.T) {
			old, fresh := open(t, b.path(t)), open(t, b.path(t))
			for _, sc := range dbschema.All() {
				b.old(t, old, sc)
			}
			for round := range 2 {
				if err := dbschema.Migrate(ctx, old); err != nil {
					t.Fatalf("upgrade, round %d: %v", round+1, err)
				}
			}
			if err := dbschema.Migrate(ctx, fresh); err != nil {
				t.Fatal(err)
			}
			shape := sqliteShape
			if b.name == "postgres" {
				shape = postgresShape
			}
			diff(t, "upgraded", shape(t, old), "fresh", shape(t, fresh))
		})
	}
}

// oldSQLite migrates db as the previous code did on SQLite: sc's root
// files, the renamed ones applied and recorded under their former names
// (which the current rule against two files of one number refuses).
func oldSQLite(t *testing.T, db *persist.DB, sc persist.Schema) {
	t.Helper()
	ctx := context.Background()
	was := map[string]string{}
	for v, old := range sc.Renamed {
		was[v+".sql"] = old
	}
	kept := fstest.MapFS{}
	for _, name := range sqlFiles(t, sc.Files, ".") {
		body, err := fs.ReadFile(sc.Files, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, renamed := was[name]; !renamed {
			kept[name] = &fstest.MapFile{Data: body}
		}
	}
	if err := db.Migrate(ctx, persist.Schema{Owner: sc.Owner, Files: kept}); err != nil {
		t.Fatalf("the old %s migrations: %v", sc.Owner, err)
	}
	for name, old := range was {
		body, err := fs.ReadFile(sc.Files, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, string(body)); err != nil {
			t.Fatalf("%s as %s: %v", name, old, err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO persist_migrations(owner, version, applied_at) VALUES (?, ?, 0)`, sc.Owner, old); err != nil {
			t.Fatal(err)
		}
	}
}

// oldPostgres migrates db as the previous code did on PostgreSQL: the
// postgres/ folder alone, without the placeholders that now stand for root
// files.
func oldPostgres(t *testing.T, db *persist.DB, sc persist.Schema) {
	t.Helper()
	out := fstest.MapFS{}
	for _, name := range sqlFiles(t, sc.Files, "postgres") {
		body, err := fs.ReadFile(sc.Files, "postgres/"+name)
		if err != nil {
			t.Fatal(err)
		}
		if placeholder(string(body)) {
			continue
		}
		out[name] = &fstest.MapFile{Data: body}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no PostgreSQL files", sc.Owner)
	}
	if err := db.Migrate(context.Background(), persist.Schema{Owner: sc.Owner, Files: out}); err != nil {
		t.Fatalf("the old %s migrations: %v", sc.Owner, err)
	}
}

func placeholder(body string) bool {
	for line := range strings.Lines(body) {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "--") {
			return false
		}
	}
	return true
}

func sqlFiles(t *testing.T, fsys fs.FS, dir string) []string {
	t.Helper()
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".sql") {
			out = append(out, e.Name())
		}
	}
	return out
}

// A shape is one sorted line per table ("table t: a,b,c") and per index
// ("index i on t(a,b) unique").
func sqliteShape(t *testing.T, db *persist.DB) []string {
	t.Helper()
	var out []string
	// A virtual table (FTS5's search_fts, catalog 0023) and the shadow
	// tables SQLite keeps for it are an index structure that PostgreSQL
	// spells as an index (pg_trgm's search_docs_by_name), so neither is
	// part of the shape compared.
	virtual := strings1(t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`)
	for _, table := range strings1(t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`) {
		if slices.ContainsFunc(virtual, func(v string) bool { return table == v || strings.HasPrefix(table, v+"_") }) {
			continue
		}
		cols := strings1(t, db, `SELECT name FROM pragma_table_info(?)`, table)
		slices.Sort(cols)
		out = append(out, "table "+table+": "+strings.Join(cols, ","))
	}
	// Explicit indexes only: sql is NULL for the automatic ones behind
	// PRIMARY KEY and UNIQUE.
	rows, err := db.QueryContext(context.Background(), `SELECT m.name, m.tbl_name, l."unique"
		FROM sqlite_master m JOIN pragma_index_list(m.tbl_name) l ON l.name = m.name
		WHERE m.type = 'index' AND m.sql IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	type index struct {
		name, table string
		unique      bool
	}
	var idx []index
	for rows.Next() {
		var i index
		if err := rows.Scan(&i.name, &i.table, &i.unique); err != nil {
			t.Fatal(err)
		}
		idx = append(idx, i)
	}
	rows.Close()
	for _, i := range idx {
		// An index on an expression has no column name; its line shows the
		// expression as written (as PostgreSQL's pg_get_expr does).
		cols := strings1(t, db, `SELECT COALESCE(name, '') FROM pragma_index_info(?) ORDER BY seqno`, i.name)
		if slices.Contains(cols, "") {
			sql := strings1(t, db, `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`, i.name)[0]
			cols = []string{strings.TrimSpace(sql[strings.Index(sql, "(")+1 : strings.LastIndex(sql, ")")])}
		}
		out = append(out, indexLine(i.name, i.table, cols, i.unique))
	}
	slices.Sort(out)
	return out
}

func postgresShape(t *testing.T, db *persist.DB) []string {
	t.Helper()
	var out []string
	for _, table := range strings1(t, db, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`) {
		cols := strings1(t, db, `SELECT column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = ?`, table)
		slices.Sort(cols)
		out = append(out, "table "+table+": "+strings.Join(cols, ","))
	}
	// Indexes that back a constraint (primary key, UNIQUE) are left out,
	// as SQLite's automatic ones are.
	rows, err := db.QueryContext(context.Background(), `SELECT i.relname, c.relname, x.indisunique,
			COALESCE((SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(x.indkey) WITH ORDINALITY k(attnum, ord)
				JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum), pg_get_expr(x.indexprs, x.indrelid))
		FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid
		JOIN pg_class c ON c.oid = x.indrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema()
			AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, table, cols string
		var unique bool
		if err := rows.Scan(&name, &table, &unique, &cols); err != nil {
			t.Fatal(err)
		}
		out = append(out, indexLine(name, table, strings.Split(cols, ","), unique))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func indexLine(name, table string, cols []string, unique bool) string {
	l := "index " + name + " on " + table + "(" + strings.Join(cols, ",") + ")"
	if unique {
		l += " unique"
	}
	return l
}

func strings1(t *testing.T, db *persist.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// diff reports every line one shape has and the other lacks.
func diff(t *testing.T, aName string, a []string, bName string, b []string) {
	t.Helper()
	if len(a) == 0 || len(b) == 0 {
		t.Fatalf("an empty schema: %s %d lines, %s %d lines", aName, len(a), bName, len(b))
	}
	for _, l := range a {
		if !slices.Contains(b, l) {
			t.Errorf("only on %s: %s", aName, l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			t.Errorf("only on %s: %s", bName, l)
		}
	}
}

// On SQLite the catalog file and the audit trail's own file each open and
// migrate with their own owners: the catalog file holds no audit table,
// the audit file nothing but audit tables, and together they hold what
// one database migrated with All holds (the PostgreSQL layout). Migrating
// either again runs nothing twice.
func TestCatalogAndAuditFilesSplitAll(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cat, aud := open(t, filepath.Join(dir, "catalog.db")), open(t, filepath.Join(dir, "audit.db"))
	one := open(t, sqlitePath(t))
	for round := range 2 {
		if err := dbschema.MigrateCatalog(ctx, cat); err != nil {
			t.Fatalf("catalog file, round %d: %v", round+1, err)
		}
		if err := dbschema.MigrateAudit(ctx, aud); err != nil {
			t.Fatalf("audit file, round %d: %v", round+1, err)
		}
	}
	if err := dbschema.Migrate(ctx, one); err != nil {
		t.Fatal(err)
	}
	catShape, audShape := sqliteShape(t, cat), sqliteShape(t, aud)
	for _, l := range catShape {
		if strings.Contains(l, " audit_") {
			t.Errorf("the catalog file has the trail's %s", l)
		}
	}
	for _, l := range audShape {
		if !strings.Contains(l, " audit_") && !strings.Contains(l, " persist_migrations") {
			t.Errorf("the audit file has %s", l)
		}
	}
	if !slices.ContainsFunc(audShape, func(l string) bool { return strings.HasPrefix(l, "table audit_events:") }) {
		t.Errorf("the audit file has no audit_events: %q", audShape)
	}
	both := slices.Compact(slices.Sorted(slices.Values(append(catShape, audShape...))))
	diff(t, "catalog+audit files", both, "one database", sqliteShape(t, one))
	for _, c := range []struct {
		db      *persist.DB
		schemas []persist.Schema
		absent  []persist.Schema
	}{{cat, dbschema.Catalog(), dbschema.Audit()}, {aud, dbschema.Audit(), dbschema.Catalog()}} {
		for _, sc := range c.schemas {
			if a, err := c.db.Applied(ctx, sc.Owner); err != nil || len(a) == 0 {
				t.Errorf("%s: nothing applied (%v)", sc.Owner, err)
			}
		}
		for _, sc := range c.absent {
			if a, err := c.db.Applied(ctx, sc.Owner); err != nil || len(a) != 0 {
				t.Errorf("%s applied where it does not belong: %v (%v)", sc.Owner, a, err)
			}
		}
	}
	if len(dbschema.All()) != len(dbschema.Catalog())+len(dbschema.Audit()) {
		t.Errorf("All has %d owners, Catalog %d and Audit %d", len(dbschema.All()), len(dbschema.Catalog()), len(dbschema.Audit()))
	}
}
