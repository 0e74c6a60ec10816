package preview

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/persist/pgtest"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// replicaPair builds two replicas' brokers on one PostgreSQL database, each
// with its own plugin (its own workers) and relay.
func replicaPair(t *testing.T) (a, b *env, dbB *persist.DB) {
	t.Helper()
	dsn, dir := pgtest.DSN(t), t.TempDir()
	open := func(name string) (*env, *persist.DB) {
		db, err := persist.Open(context.Background(), persist.Options{Path: dsn})
		if err != nil {
			t.Fatal(err)
		}
		if err := dbschema.Migrate(context.Background(), db); err != nil {
			t.Fatal(err)
		}
		bus := notify.New(db, notify.Options{Replica: name})
		runtest.Start(t, bus)
		t.Cleanup(func() { bus.Close(); db.Close() })
		<-bus.Listening()
		e := newEnvOn(t, db, filepath.Join(dir, "wh"))
		e.b.Relay(db, bus, nil)
		runtest.Start(t, e.b)
		return e, db
	}
	a, _ = open("A")
	b, dbB = open("B")
	return a, b, dbB
}

// TestPreviewRelayedToOtherReplica: Browse Data on replica B reaches the
// worker connected to replica A, rows and errors alike; a table no replica's
// worker can read answers B's own sentence, after the claim wait.
func TestPreviewRelayedToOtherReplica(t *testing.T) {
	a, b, db := replicaPair(t)
	ipc := allTypesIPC(t, 30)
	a.worker("w-on-a", func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
		if p.GetObjectId() == "broken" {
			return nil, &pluginpb.PreviewDone{Error: "the dataset has no _versions directory"}
		}
		return plugintest.Split(ipc, 4<<10), &pluginpb.PreviewDone{TotalRows: 30, RowsSent: 30}
	})
	a.observed("t1", "w-on-a")
	ctx := context.Background()

	cases := []struct {
		name  string
		req   Request
		check func(t *testing.T, res *Result, err error)
	}{
		{"rows", Request{ObjectID: "t1", Format: catalog.FormatLance, RowLimit: 7, Columns: []string{"i8"}},
			func(t *testing.T, res *Result, err error) {
				if err != nil || res.WorkerID != "w-on-a" || res.RowsRead != 7 || len(res.Rows) != 7 || !res.Truncated {
					t.Fatalf("relayed preview: %+v, %v", res, err)
				}
			}},
		{"worker error", Request{ObjectID: "broken", Format: catalog.FormatLance},
			func(t *testing.T, res *Result, err error) {
				if !errors.Is(err, ErrWorker) || !strings.Contains(fault.Message(err, ""), "w-on-a") {
					t.Fatalf("relayed failure: %v", err)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := b.b.Fetch(ctx, c.req)
			c.check(t, res, err)
		})
	}
	t.Run("no worker anywhere", func(t *testing.T) {
		res, err := b.b.Fetch(ctx, Request{ObjectID: "t2", Format: catalog.FormatIceberg})
		if !errors.Is(err, ErrNotObserved) || res != nil {
			t.Fatalf("no worker can read ICEBERG: %+v, %v", res, err)
		}
	})
	var left int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM preview_relay`).Scan(&left); err == nil && left != 0 {
		t.Fatalf("%d relay rows left behind", left)
	}
}
