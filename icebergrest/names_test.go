package icebergrest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// TestIcebergGoNames: iceberg-go creates, lists, loads, appends to,
// renames and drops tables whose namespace and names hold upper case,
// spaces and punctuation; names differing only in case are two tables
// with two directories, none of which the other's could be on a
// case-insensitive store; and the console's Browse Data reads the rows.
func TestIcebergGoNames(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, false)
	env.bucket(t, "lake", catalog.FormatIceberg)
	_, secret, err := env.store.CreateAPIKey(ctx, "test", catalog.RoleReadWrite, "lake", 0)
	if err != nil {
		t.Fatal(err)
	}
	cat := newClient(t, env.http.URL, "lake", secret)
	ns := table.Identifier{"Sales EU", "Q1+Q2"}
	if err := cat.CreateNamespace(ctx, ns[:1], nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	upper := append(slices.Clone(ns), "My Events")
	lower := append(slices.Clone(ns), "my events")
	for _, id := range []table.Identifier{upper, lower} {
		tbl := createEventsTable(t, ctx, cat, id)
		if _, err := tbl.AppendTable(ctx, batch(0, 10+int64(len(id[2])%3)), 1024, nil); err != nil {
			t.Fatalf("append %v: %v", id, err)
		}
	}
	var names []string
	for id, err := range cat.ListTables(ctx, ns) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, id[len(id)-1])
	}
	if !slices.Equal(names, []string{"My Events", "my events"}) {
		t.Fatalf("list tables = %q", names)
	}
	var nss []string
	for _, id := range mustList(t, cat, ns[:1]) {
		nss = append(nss, strings.Join(id, "/"))
	}
	if !slices.Equal(nss, []string{"Sales EU/Q1+Q2"}) {
		t.Fatalf("list namespaces = %q", nss)
	}
	a, err := env.store.GetTable(ctx, catalog.TableRef{Bucket: "lake", Namespace: ns, Name: "My Events"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := env.store.GetTable(ctx, catalog.TableRef{Bucket: "lake", Namespace: ns, Name: "my events"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{a.Location, b.Location} {
		if dirs := l[strings.Index(l, "/lake/"):]; strings.ContainsAny(dirs, "ABCDEFGHIJKLMNOPQRSTUVWXYZ +") {
			t.Errorf("location %s holds upper case, a space or a +", l)
		}
	}
	if strings.EqualFold(a.Location, b.Location) {
		t.Fatalf("two tables share %s on a case-insensitive store", a.Location)
	}
	if !strings.HasSuffix(a.Location, "/lake/__sales_032_e_u.__q1_043_q2/__my_032_events") {
		t.Fatalf("location %s", a.Location)
	}
	if loaded, err := cat.LoadTable(ctx, upper); err != nil || loaded.Identifier()[2] != "My Events" {
		t.Fatalf("load: %v", err)
	}
	if _, err := cat.LoadTable(ctx, append(slices.Clone(ns), "MY EVENTS")); err == nil {
		t.Fatal("a name in another case loaded a table")
	}
	rows, err := iceberg.ReadRows(ctx, env.store.Storage(), a, 0, 200)
	if err != nil || len(rows.Rows) == 0 {
		t.Fatalf("Browse Data read: %v rows, %v", rows, err)
	}
	renamed := append(slices.Clone(ns), "Events (old)")
	if _, err := cat.RenameTable(ctx, upper, renamed); err != nil {
		t.Fatalf("rename: %v", err)
	}
	if _, err := cat.LoadTable(ctx, renamed); err != nil {
		t.Fatalf("load renamed: %v", err)
	}
	if err := cat.DropTable(ctx, renamed); err != nil {
		t.Fatalf("drop: %v", err)
	}
	if _, err := cat.LoadTable(ctx, lower); err != nil {
		t.Fatalf("the other table went with the drop: %v", err)
	}
	// A level with a dot is refused: floe joins levels with one.
	if err := cat.CreateNamespace(ctx, table.Identifier{"a.b"}, nil); err == nil || !strings.Contains(err.Error(), "must not contain .") {
		t.Fatalf("a dotted level: %v", err)
	}
}

func mustList(t *testing.T, cat interface {
	ListNamespaces(context.Context, table.Identifier) ([]table.Identifier, error)
}, parent table.Identifier) []table.Identifier {
	t.Helper()
	out, err := cat.ListNamespaces(context.Background(), parent)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
