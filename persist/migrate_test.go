package persist

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), Options{Path: filepath.Join(t.TempDir(), "t.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func tableCount(t *testing.T, db *DB, name string) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(),
		`SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Each owner's files run once, in lexical order, and are recorded under
// that owner only; the steps share one database, in order.
func TestMigratePerOwner(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	// Every file appends its name to ran, so order and repetition show.
	const ranTable = `CREATE TABLE IF NOT EXISTS ran (seq INTEGER PRIMARY KEY AUTOINCREMENT, what TEXT NOT NULL);`
	file := func(what string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(ranTable + "\nINSERT INTO ran(what) VALUES ('" + what + "');")}
	}
	alpha := fstest.MapFS{"0004_b.sql": file("alpha/0004"), "0001_a.sql": file("alpha/0001"), "README.md": {Data: []byte("not a migration")}}
	beta := fstest.MapFS{"0001_a.sql": file("beta/0001")} // same name as alpha's: owners are independent
	steps := []struct {
		name    string
		owner   string
		fsys    fstest.MapFS
		add     map[string]string
		wantErr string // substring of the error; "" = success
		wantRan string // every run so far, in order
	}{
		{"first owner in lexical order", "alpha", alpha, nil, "", "alpha/0001,alpha/0004"},
		{"rerun is a no-op", "alpha", alpha, nil, "", "alpha/0001,alpha/0004"},
		{"second owner with the same version names", "beta", beta, nil, "", "alpha/0001,alpha/0004,beta/0001"},
		{"a gap and a file below the highest applied both run", "alpha", alpha,
			map[string]string{"0009_z.sql": "INSERT INTO ran(what) VALUES ('alpha/0009');", "0002_c.sql": "INSERT INTO ran(what) VALUES ('alpha/0002');"},
			"", "alpha/0001,alpha/0004,beta/0001,alpha/0002,alpha/0009"},
		{"a failing file rolls back whole and names itself", "alpha", alpha,
			map[string]string{"0010_bad.sql": "CREATE TABLE half (id INTEGER); INSERT INTO ran(what) VALUES ('bad'); NOT SQL;"},
			"alpha migration 0010_bad", "alpha/0001,alpha/0004,beta/0001,alpha/0002,alpha/0009"},
		{"a misnamed file is refused before anything runs", "beta", beta,
			map[string]string{"2_x.sql": "INSERT INTO ran(what) VALUES ('misnamed');"},
			"not named NNNN_name.sql", "alpha/0001,alpha/0004,beta/0001,alpha/0002,alpha/0009"},
		{"two root files sharing a number are refused before anything runs", "alpha", alpha,
			map[string]string{"0009_y.sql": "INSERT INTO ran(what) VALUES ('second 0009');"},
			"0009_y.sql and 0009_z.sql share the number 0009", "alpha/0001,alpha/0004,beta/0001,alpha/0002,alpha/0009"},
		{"an owner name with a space is refused", "Al pha", fstest.MapFS{}, nil, "short lower-case name",
			"alpha/0001,alpha/0004,beta/0001,alpha/0002,alpha/0009"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			for k, v := range st.add {
				st.fsys[k] = &fstest.MapFile{Data: []byte(v)}
			}
			err := db.Migrate(ctx, Schema{Owner: st.owner, Files: st.fsys})
			delete(st.fsys, "0009_y.sql") // the refused duplicate leaves with its step
			switch {
			case st.wantErr == "" && err != nil:
				t.Fatal(err)
			case st.wantErr != "" && (err == nil || !strings.Contains(err.Error(), st.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, st.wantErr)
			}
			rows, err := db.QueryContext(ctx, `SELECT what FROM ran ORDER BY seq`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var ran []string
			for rows.Next() {
				var w string
				if err := rows.Scan(&w); err != nil {
					t.Fatal(err)
				}
				ran = append(ran, w)
			}
			if got := strings.Join(ran, ","); got != st.wantRan {
				t.Errorf("ran %s, want %s", got, st.wantRan)
			}
			if tableCount(t, db, "half") != 0 {
				t.Error("a failed migration left a half-applied table")
			}
		})
	}
	// Versions are recorded per owner.
	for owner, want := range map[string]string{"alpha": "0001_a,0002_c,0004_b,0009_z", "beta": "0001_a"} {
		got, err := db.Applied(ctx, owner)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("Applied(%s) = %v, %v; want %s", owner, got, err, want)
		}
	}
}

// Several processes starting at once race to migrate a fresh file: every
// one opens, and each file runs once.
func TestMigrateConcurrentOpeners(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	fsys := fstest.MapFS{
		"0001_a.sql": {Data: []byte("CREATE TABLE runs (n INTEGER); INSERT INTO runs VALUES (1);")},
		"0002_b.sql": {Data: []byte("INSERT INTO runs VALUES (2);")},
	}
	const openers = 4
	errs := make(chan error, openers)
	dbs := make(chan *DB, openers)
	for range openers {
		go func() {
			db, err := Open(context.Background(), Options{Path: path})
			if err == nil {
				err = db.Migrate(context.Background(), Schema{Owner: "race", Files: fsys})
				dbs <- db
			}
			errs <- err
		}()
	}
	for range openers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(dbs)
	var first *DB
	for db := range dbs {
		if first == nil {
			first = db
			continue
		}
		db.Close()
	}
	defer first.Close()
	var n, sum int
	if err := first.QueryRowContext(context.Background(), `SELECT COUNT(*), SUM(n) FROM runs`).Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 2 || sum != 3 {
		t.Errorf("runs holds %d rows summing %d; each file must run exactly once", n, sum)
	}
}

// A file renamed after databases applied it (two files once shared a
// number) does not run again where its old name is recorded, and runs
// where it is not; either way the new name is recorded.
func TestMigrateRenamedVersion(t *testing.T) {
	ctx := context.Background()
	body := []byte("CREATE TABLE IF NOT EXISTS runs (n INTEGER); INSERT INTO runs VALUES (1);")
	before := fstest.MapFS{"0007_old.sql": {Data: body}}
	after := Schema{Owner: "owner", Files: fstest.MapFS{"0009_old.sql": {Data: body}},
		Renamed: map[string]string{"0009_old": "0007_old"}}
	for _, tc := range []struct {
		name    string
		applied bool // the old name was applied before the rename
		want    int  // rows in runs: 1 = the file ran once in all
	}{
		{"old name recorded", true, 1},
		{"fresh database", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTest(t)
			if tc.applied {
				if err := db.Migrate(ctx, Schema{Owner: "owner", Files: before}); err != nil {
					t.Fatal(err)
				}
			}
			for range 2 {
				if err := db.Migrate(ctx, after); err != nil {
					t.Fatal(err)
				}
			}
			var n int
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != tc.want {
				t.Errorf("the renamed file ran %d times, want %d", n, tc.want)
			}
			got, err := db.Applied(ctx, "owner")
			if err != nil || !strings.Contains(strings.Join(got, ","), "0009_old") {
				t.Errorf("applied %v (%v): want 0009_old recorded", got, err)
			}
		})
	}
	bad := Schema{Owner: "owner", Files: fstest.MapFS{"0001_a.sql": {Data: body}}, Renamed: map[string]string{"0002_gone": "0001_x"}}
	if err := openTest(t).Migrate(ctx, bad); err == nil || !strings.Contains(err.Error(), "has no file") {
		t.Errorf("a rename of a version with no file: %v, want refused", err)
	}
}
