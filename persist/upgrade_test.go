package persist_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/web/sessions"
)

// legacyDB builds a catalog.db the way floe did before per-owner migrations:
// every file of testdata/legacy (a copy of the old shared catalog/migrations
// folder) applied in order and recorded in schema_migrations, then rows
// stamped in the old units — nanoseconds in the catalog and sessions,
// milliseconds in the plugin and observations, microseconds in tasks.
func legacyDB(t *testing.T, path string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE schema_migrations (version TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("testdata/legacy/*.sql")
	if err != nil || len(files) != 8 {
		t.Fatalf("legacy migrations: %v, %v", files, err)
	}
	sort.Strings(files)
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, string(body)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		version := strings.TrimSuffix(filepath.Base(f), ".sql")
		if _, err := db.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, ?)`, version, at.UnixNano()); err != nil {
			t.Fatal(err)
		}
	}
	ns, ms, us := at.UnixNano(), at.UnixMilli(), at.UnixMicro()
	for _, st := range []struct {
		q    string
		args []any
	}{
		{`INSERT INTO buckets(name, format, arn, created_at) VALUES ('old', 'LANCE', 'arn:floe:s3tables:local:000000000000:bucket/old', ?)`, []any{ns}},
		{`INSERT INTO namespaces(bucket, name, parent, created_at) VALUES ('old', 'ns', '', ?)`, []any{ns}},
		{`INSERT INTO tables(id, bucket, namespace, name, format, location, version_token, state, created_at, modified_at)
			VALUES ('00000000-0000-0000-0000-000000000001', 'old', 'ns', 'docs', 'LANCE', '/wh/old/ns/docs.lance', 'tok', 'created', ?, ?)`, []any{ns, ns}},
		{`INSERT INTO users(name, password_hash, role, created_at) VALUES ('ana', 'x', 'admin', ?)`, []any{ns}},
		{`INSERT INTO api_keys(id, name, role, secret_hash, created_at, last_used_at, expires_at) VALUES ('k-1', 'spark', 'readonly', x'00', ?, 0, ?)`,
			[]any{ns, at.Add(time.Hour).UnixNano()}},
		{`INSERT INTO sessions(token, data, expiry) VALUES ('tok', x'01', ?)`, []any{at.Add(time.Hour).UnixNano()}},
		{`INSERT INTO plugin_jobs(id, job_type, lane, state, created_at, updated_at, finished_at) VALUES ('j-1', 'lance_compact', 'lance', 'succeeded', ?, ?, ?)`,
			[]any{ms, ms, ms}},
		{`INSERT INTO plugin_job_events(job_id, seq, at, message) VALUES ('j-1', 1, ?, 'done')`, []any{ms}},
		{`INSERT INTO observations(object_id, format, observed_at) VALUES ('00000000-0000-0000-0000-000000000001', 'LANCE', ?)`, []any{ms}},
		{`INSERT INTO lance_tasks(id, table_id, task_type, status, created_at, completed_at) VALUES ('00000000000000000000000000000001', '00000000-0000-0000-0000-000000000001', 'lance_compact', 'completed', ?, ?)`,
			[]any{us, us}},
	} {
		if _, err := db.ExecContext(ctx, st.q, st.args...); err != nil {
			t.Fatalf("%s: %v", st.q, err)
		}
	}
}

// A catalog.db made by floe before the persistence package opens with the
// new code, in place: only the new migrations run, every stored time reads
// back as it was written, and opening again changes nothing.
func TestOldDatabaseUpgradesInPlace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.db")
	at := time.Now().Add(-time.Minute).Truncate(time.Millisecond).UTC() // exact in every old unit
	legacyDB(t, path, at)

	for round := 1; round <= 2; round++ { // the second open must find nothing to do
		db, err := persist.Open(ctx, persist.Options{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if err := dbschema.Migrate(ctx, db); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		st, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "wh")})
		if err != nil {
			t.Fatalf("round %d: catalog: %v", round, err)
		}
		sess, err := sessions.New(db, nil)
		if err != nil {
			t.Fatalf("round %d: sessions: %v", round, err)
		}
		obs, err := observe.New(db, 0)
		if err != nil {
			t.Fatalf("round %d: observe: %v", round, err)
		}
		p, err := plugin.New(plugin.Config{DB: db, Store: st, Observe: obs, Logger: slog.New(slog.DiscardHandler),
			Options: plugin.Options{DisableScheduler: true}})
		if err != nil {
			t.Fatalf("round %d: plugin: %v", round, err)
		}
		ts, err := tasks.New(db, st, nil, nil)
		if err != nil {
			t.Fatalf("round %d: tasks: %v", round, err)
		}
		for _, l := range []interface{ Load(context.Context) error }{obs, p, ts} {
			if err := l.Load(ctx); err != nil {
				t.Fatalf("round %d: load %T: %v", round, l, err)
			}
		}

		checks := []struct {
			name string
			got  func() (time.Time, error)
			want time.Time
		}{
			{"bucket created", func() (time.Time, error) { b, err := st.GetBucket(ctx, "old"); return b.CreatedAt, err }, at},
			{"user created", func() (time.Time, error) { u, err := st.GetUser(ctx, "ana"); return u.CreatedAt, err }, at},
			{"table modified", func() (time.Time, error) {
				tb, err := st.GetTableByID(ctx, "00000000-0000-0000-0000-000000000001")
				return tb.ModifiedAt, err
			}, at},
			{"api key expiry", func() (time.Time, error) {
				keys, err := st.ListAPIKeys(ctx)
				if err != nil || len(keys) != 1 {
					return time.Time{}, errors.Join(err, errors.New("want one key listed (not expired)"))
				}
				return keys[0].ExpiresAt, nil
			}, at.Add(time.Hour)},
			{"job created", func() (time.Time, error) { j, err := p.GetJob(ctx, "j-1"); return j.CreatedAt, err }, at},
			{"observation", func() (time.Time, error) {
				o, ok := obs.Get("00000000-0000-0000-0000-000000000001", catalog.FormatLance)
				if !ok {
					return time.Time{}, errors.New("observation not loaded")
				}
				return o.ObservedAt, nil
			}, at},
			{"task completed", func() (time.Time, error) {
				tk, err := ts.Get(ctx, "00000000-0000-0000-0000-000000000001", "00000000000000000000000000000001")
				return tk.CompletedAt, err
			}, at},
		}
		for _, c := range checks {
			got, err := c.got()
			if err != nil {
				t.Errorf("round %d: %s: %v", round, c.name, err)
				continue
			}
			if !got.Equal(c.want) {
				t.Errorf("round %d: %s = %v, want %v", round, c.name, got, c.want)
			}
		}
		if _, ok, err := sess.FindCtx(ctx, "tok"); err != nil || !ok {
			t.Errorf("round %d: a session valid for another hour is not found (%v): its expiry was not converted", round, err)
		}
		for owner, want := range map[string]string{
			catalog.MigrationOwner:  "0001_catalog,0002_auth,0003_table_counts,0004_namespace_table_counts,0005_table_generation,0006_times_micros",
			plugin.MigrationOwner:   "0010_plugin,0011_times_micros",
			observe.MigrationOwner:  "0020_observations,0021_times_micros",
			tasks.MigrationOwner:    "0030_tasks",
			sessions.MigrationOwner: "0001_sessions,0002_expiry_micros",
		} {
			got, err := db.Applied(ctx, owner)
			applied := map[string]bool{}
			for _, v := range got {
				applied[v] = true
			}
			for _, v := range strings.Split(want, ",") {
				if err != nil || !applied[v] {
					t.Errorf("round %d: %s applied %v (%v), want %s among them", round, owner, got, err, v)
				}
			}
		}

		if err := p.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		obs.Close()
		st.Close()
		db.Close()
	}
}
