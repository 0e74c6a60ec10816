package iceworker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/warehouse"
)

// TestSoftDeleteOnS3: on a SeaweedFS warehouse, an Iceberg drop with
// purgeRequested=true through iceberg-go's REST client hides the table
// from every listing and leaves each of its objects as it was (hashed);
// floe's undrop route beside register brings it back with every row and
// snapshot; after a second such drop, Purge now deletes exactly its objects and
// leaves the neighbour's byte for byte (issue 24).
func TestSoftDeleteOnS3(t *testing.T) {
	ctx := context.Background()
	e, _, b := newS3Env(t)
	if _, err := e.store.SetBucketHold(ctx, "lake", 7*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	tbl := e.createTable(t, "events", true, nil)
	for i := range int64(3) {
		tbl = appendRows(t, tbl, i*10, i*10+10)
	}
	other := e.createTable(t, "other", false, nil)
	for i := range int64(2) {
		other = appendRows(t, other, i*10, i*10+10)
	}
	hashes := func(loc string) map[string]string {
		t.Helper()
		l, err := warehouse.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		if err := b.List(ctx, l, func(en warehouse.Entry) error {
			data, err := b.ReadFile(ctx, en.Loc)
			if err != nil {
				return err
			}
			h := sha256.Sum256(data)
			out[en.Loc.String()] = hex.EncodeToString(h[:])
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	listed := func() []string {
		t.Helper()
		var out []string
		for id, err := range e.cat.ListTables(ctx, table.Identifier{"ns"}) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, id[len(id)-1])
		}
		slices.Sort(out)
		return out
	}
	snapshots := func(tb *table.Table) []int64 {
		var ids []int64
		for _, s := range tb.Metadata().Snapshots() {
			ids = append(ids, s.SnapshotID)
		}
		slices.Sort(ids)
		return ids
	}
	rows, snaps := scanRows(t, tbl, 0), snapshots(tbl)
	before, otherBefore := hashes(tbl.Location()), hashes(other.Location())
	if len(before) < 6 || len(otherBefore) == 0 || len(rows) != 30 {
		t.Fatalf("seeded %d objects, %d rows and %d neighbour objects: the test would prove nothing", len(before), len(rows), len(otherBefore))
	}
	rec, err := e.store.GetTable(ctx, catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "events"})
	if err != nil {
		t.Fatal(err)
	}

	if err := e.cat.PurgeTable(ctx, table.Identifier{"ns", "events"}); err != nil {
		t.Fatalf("drop with purgeRequested: %v", err)
	}
	if got := listed(); !slices.Equal(got, []string{"other"}) {
		t.Fatalf("Iceberg REST lists %v after the drop, want [other]", got)
	}
	if _, err := e.cat.LoadTable(ctx, table.Identifier{"ns", "events"}); err == nil {
		t.Fatal("a dropped table still loads")
	}
	if got := hashes(tbl.Location()); !maps.Equal(got, before) {
		t.Fatalf("a held purge changed the objects: %d now, %d before", len(got), len(before))
	}

	req, err := http.NewRequestWithContext(ctx, "POST", e.url+"/v1/lake/namespaces/ns/undrop", bytes.NewReader([]byte(`{"name":"events"}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("undrop: %d", resp.StatusCode)
	}
	back := e.load(t, "events")
	if got := scanRows(t, back, 0); !slices.Equal(got, rows) {
		t.Fatalf("after undrop %d rows, before the drop %d", len(got), len(rows))
	}
	if got := snapshots(back); !slices.Equal(got, snaps) {
		t.Fatalf("after undrop snapshots %v, before %v", got, snaps)
	}
	if got := listed(); !slices.Equal(got, []string{"events", "other"}) {
		t.Fatalf("Iceberg REST lists %v after undrop", got)
	}

	// Dropped again with purgeRequested (a drop without it keeps the data
	// whatever happens, as Iceberg says), then purged now.
	if err := e.cat.PurgeTable(ctx, table.Identifier{"ns", "events"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.PurgeDeletedTable(ctx, rec.ID, false); err != nil {
		t.Fatal(err)
	}
	if got := hashes(tbl.Location()); len(got) != 0 {
		t.Fatalf("Purge now left %d objects of the table", len(got))
	}
	if got := hashes(other.Location()); !maps.Equal(got, otherBefore) {
		t.Fatalf("Purge now changed the neighbour's objects: %d now, %d before", len(got), len(otherBefore))
	}
	if _, err := e.store.GetDeletedTable(ctx, rec.ID); !errors.Is(err, fault.NotFound) {
		t.Fatalf("a purged table is still recently deleted: %v", err)
	}
	if got := scanRows(t, e.load(t, "other"), 0); len(got) != 20 {
		t.Fatalf("the neighbour reads %d rows after the purge", len(got))
	}
}
