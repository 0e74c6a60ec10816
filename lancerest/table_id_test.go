package lancerest

import (
	"context"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestDescribeCarriesTableID checks DescribeTable names the catalog's table
// id at every namespace depth, so workers key their work by the console's id.
func TestDescribeCarriesTableID(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	for _, tc := range []struct{ ns []string }{{[]string{"ns"}}, {[]string{"ns", "sub"}}} {
		ref := catalog.TableRef{Bucket: "lnc", Namespace: tc.ns, Name: "deep"}
		tb, _, err := e.store.CreateTable(context.Background(), catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance})
		if err != nil {
			t.Fatal(err)
		}
		path := "/v1/table/lnc$" + catalog.JoinNamespace(tc.ns) + "$deep/describe"
		if len(tc.ns) == 2 {
			path = "/v1/table/lnc$ns$sub$deep/describe"
		}
		r := e.must("POST", path, "")
		if got := r.header.Get(TableIDHeader); got != tb.ID {
			t.Errorf("%s: %s = %q, want %q", path, TableIDHeader, got, tb.ID)
		}
	}
}
