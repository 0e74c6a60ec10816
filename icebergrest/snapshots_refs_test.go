package icebergrest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	iceberggo "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
)

// TestIssue26SnapshotsRefs: LoadTable's snapshots=refs was ignored and
// every snapshot came back. Now only the snapshots a branch or tag points
// at are returned, iceberg-go in refs mode loads and scans the table, and
// snapshots=all (and no parameter) still return the whole history.
func TestIssue26SnapshotsRefs(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	ident := table.Identifier{"ns", "events"}
	tbl := createEventsTable(t, ctx, cat, ident)
	var snaps []int64
	for i := range int64(4) {
		var err error
		if tbl, err = tbl.AppendTable(ctx, batch(i*10, i*10+10), 1024, nil); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, tbl.CurrentSnapshot().SnapshotID)
	}
	// A tag on the first snapshot; main is on the last.
	if _, _, err := cat.CommitTable(ctx, ident, nil, []table.Update{table.NewSetSnapshotRefUpdate("first", snaps[0], table.TagRef, -1, -1, -1)}); err != nil {
		t.Fatal(err)
	}
	load := func(query string) []int64 {
		t.Helper()
		resp, err := http.Get(e.http.URL + "/v1/lake/namespaces/ns/tables/events" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("load%s: %d %s", query, resp.StatusCode, raw)
		}
		var out struct {
			Metadata json.RawMessage `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		md, err := table.ParseMetadataBytes(out.Metadata)
		if err != nil {
			t.Fatalf("load%s: iceberg-go cannot parse the metadata: %v", query, err)
		}
		var ids []int64
		for _, s := range md.Snapshots() {
			ids = append(ids, s.SnapshotID)
		}
		slices.Sort(ids)
		return ids
	}
	all := slices.Sorted(slices.Values(snaps))
	for _, q := range []string{"", "?snapshots=all"} {
		if got := load(q); !slices.Equal(got, all) {
			t.Fatalf("load%s snapshots = %v, want all %v", q, got, all)
		}
	}
	want := []int64{snaps[0], snaps[3]}
	slices.Sort(want)
	if got := load("?snapshots=refs"); !slices.Equal(got, want) {
		t.Fatalf("snapshots=refs = %v, want the heads of main and the tag %v", got, want)
	}
	if code, body := e.call(t, "GET", "/v1/lake/namespaces/ns/tables/events?snapshots=some", "", nil); code != 400 {
		t.Fatalf("snapshots=some: %d %v", code, body)
	}
	refsCat := newClientWith(t, e.http.URL, "lake", rest.WithAdditionalProps(iceberggo.Properties{"snapshot-loading-mode": "refs"}))
	lt, err := refsCat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatalf("iceberg-go in refs mode: %v", err)
	}
	if got := scanIDs(t, ctx, lt); !slices.Equal(got, seq(0, 40)) {
		t.Fatalf("refs-mode scan = %v", got)
	}
}

func newClientWith(t testing.TB, url, warehouse string, opts ...rest.Option) *rest.Catalog {
	t.Helper()
	cat, err := rest.NewCatalog(context.Background(), "floe", url, append([]rest.Option{rest.WithWarehouseLocation(warehouse)}, opts...)...)
	if err != nil {
		t.Fatalf("rest.NewCatalog: %v", err)
	}
	return cat
}
