package icebergrest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	iceberggo "github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"
	"github.com/google/uuid"

	"github.com/floe/floe/catalog"
)

func viewSchema() *iceberggo.Schema {
	return iceberggo.NewSchema(0,
		iceberggo.NestedField{ID: 1, Name: "region", Type: iceberggo.PrimitiveTypes.String},
		iceberggo.NestedField{ID: 2, Name: "n", Type: iceberggo.PrimitiveTypes.Int64, Required: true},
	)
}

func viewVersion(t *testing.T, reps ...view.Representation) *view.Version {
	t.Helper()
	v, err := view.NewVersion(1, 0, reps, table.Identifier{"sales"})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestIcebergGoViews drives every view operation with iceberg-go's REST
// client: create, load, list, exists, replace with assert-view-uuid, a
// requirement that fails, rename across namespaces, drop and register.
func TestIcebergGoViews(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, false)
	env.bucket(t, "lake", catalog.FormatIceberg)
	_, secret, err := env.store.CreateAPIKey(ctx, "test", catalog.RoleReadWrite, "lake", 0)
	if err != nil {
		t.Fatal(err)
	}
	cat := newClient(t, env.http.URL, "lake", secret)
	for _, ns := range []string{"sales", "marts"} {
		if err := cat.CreateNamespace(ctx, table.Identifier{ns}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ident := table.Identifier{"sales", "by_region"}
	v1 := viewVersion(t,
		view.NewRepresentation("SELECT region, count(*) AS n FROM events GROUP BY region", "spark"),
		view.NewRepresentation("SELECT region, count(*) AS n FROM sales.events GROUP BY 1", "trino"))
	created, err := cat.CreateView(ctx, ident, v1, viewSchema(), icecatalog.WithViewProperties(iceberggo.Properties{"comment": "per region"}))
	if err != nil {
		t.Fatalf("create view: %v", err)
	}
	if _, err := cat.CreateView(ctx, ident, v1, viewSchema()); !errors.Is(err, icecatalog.ErrViewAlreadyExists) {
		t.Fatalf("second create = %v, want ErrViewAlreadyExists", err)
	}

	loaded, err := cat.LoadView(ctx, ident)
	if err != nil {
		t.Fatalf("load view: %v", err)
	}
	if loaded.MetadataLocation() != created.MetadataLocation() || len(loaded.CurrentVersion().Representations) != 2 {
		t.Fatalf("loaded %s with %d representations, created %s", loaded.MetadataLocation(), len(loaded.CurrentVersion().Representations), created.MetadataLocation())
	}
	if !fileExists(loaded.MetadataLocation()) {
		t.Fatalf("metadata file %s is not in the warehouse", loaded.MetadataLocation())
	}
	if got := loaded.CurrentSchema().NumFields(); got != 2 {
		t.Fatalf("schema has %d fields", got)
	}
	if ok, err := cat.CheckViewExists(ctx, ident); !ok || err != nil {
		t.Fatalf("exists = %v, %v", ok, err)
	}
	if ok, err := cat.CheckViewExists(ctx, table.Identifier{"sales", "nope"}); ok || err != nil {
		t.Fatalf("exists(nope) = %v, %v", ok, err)
	}
	names := listViewNames(t, ctx, cat, "sales")
	if !slices.Equal(names, []string{"by_region"}) {
		t.Fatalf("views = %v", names)
	}

	// Replace: a new version with the client's requirement on the uuid.
	uid := loaded.Metadata().ViewUUID()
	v2 := viewVersion(t, view.NewRepresentation("SELECT region, count(*) AS n FROM events WHERE n > 0 GROUP BY region", "spark"))
	v2.SchemaID = -1
	replaced, err := cat.UpdateView(ctx, ident,
		[]view.Requirement{view.AssertViewUUID(uid)},
		[]view.Update{view.NewAddSchemaUpdate(viewSchema()), view.NewAddViewVersionUpdate(v2), view.NewSetCurrentVersionUpdate(-1)})
	if err != nil {
		t.Fatalf("replace view: %v", err)
	}
	if got := replaced.CurrentVersion().VersionID; got != 2 {
		t.Fatalf("current version = %d, want 2", got)
	}
	if n := len(replaced.Versions()); n != 2 {
		t.Fatalf("%d versions kept, want 2", n)
	}
	if log := replaced.Metadata().VersionLog(); len(log) != 2 {
		t.Fatalf("version log = %v", log)
	}

	// A requirement that fails is CommitFailed and changes nothing.
	_, err = cat.UpdateView(ctx, ident, []view.Requirement{view.AssertViewUUID(uuid.New())},
		[]view.Update{view.NewSetPropertiesUpdate(iceberggo.Properties{"x": "y"})})
	if !errors.Is(err, rest.ErrCommitFailed) {
		t.Fatalf("update with a wrong uuid = %v, want CommitFailed", err)
	}
	if again, _ := cat.LoadView(ctx, ident); again.MetadataLocation() != replaced.MetadataLocation() {
		t.Fatal("a failed commit changed the view")
	}

	// Rename across namespaces.
	moved := table.Identifier{"marts", "regions"}
	if _, err := cat.RenameView(ctx, ident, moved); err != nil {
		t.Fatalf("rename: %v", err)
	}
	if ok, _ := cat.CheckViewExists(ctx, ident); ok {
		t.Fatal("the old name still exists after rename")
	}
	got, err := cat.LoadView(ctx, moved)
	if err != nil || got.CurrentVersion().VersionID != 2 {
		t.Fatalf("load renamed view: %v", err)
	}

	// Drop forgets the entry; register-view brings it back from its file.
	if err := cat.DropView(ctx, moved); err != nil {
		t.Fatalf("drop: %v", err)
	}
	if _, err := cat.LoadView(ctx, moved); !errors.Is(err, icecatalog.ErrNoSuchView) {
		t.Fatalf("load after drop = %v", err)
	}
	if err := cat.DropView(ctx, moved); !errors.Is(err, icecatalog.ErrNoSuchView) {
		t.Fatalf("second drop = %v", err)
	}
	back, err := cat.RegisterView(ctx, table.Identifier{"marts", "restored"}, got.MetadataLocation())
	if err != nil {
		t.Fatalf("register view: %v", err)
	}
	if back.CurrentVersion().VersionID != 2 || back.Metadata().ViewUUID() != uid {
		t.Fatalf("registered view lost its versions or uuid")
	}
}

func listViewNames(t *testing.T, ctx context.Context, cat *rest.Catalog, ns string) []string {
	t.Helper()
	var names []string
	for id, err := range cat.ListViews(ctx, table.Identifier{ns}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, id[len(id)-1])
	}
	return names
}

// TestViewTableNamesCollide checks both directions of "a view and a table
// never share a name", for create and for rename.
func TestViewTableNamesCollide(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, true)
	env.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, env.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	createEventsTable(t, ctx, cat, table.Identifier{"sales", "events"})
	v1 := viewVersion(t, view.NewRepresentation("SELECT 1 AS n", "spark"))
	if _, err := cat.CreateView(ctx, table.Identifier{"sales", "events"}, v1, viewSchema()); !errors.Is(err, icecatalog.ErrViewAlreadyExists) {
		t.Fatalf("view over a table's name = %v, want 409", err)
	}
	if _, err := cat.CreateView(ctx, table.Identifier{"sales", "v"}, v1, viewSchema()); err != nil {
		t.Fatal(err)
	}
	tableBody := map[string]any{"name": "v", "schema": map[string]any{"type": "struct", "fields": []any{
		map[string]any{"id": 1, "name": "a", "type": "long", "required": false}}}}
	cases := []struct {
		name, method, path string
		body               any
		wantCode           int
	}{
		{"create table over a view", "POST", "/v1/lake/namespaces/sales/tables", tableBody, http.StatusConflict},
		{"rename table onto a view", "POST", "/v1/lake/tables/rename", map[string]any{
			"source":      map[string]any{"namespace": []string{"sales"}, "name": "events"},
			"destination": map[string]any{"namespace": []string{"sales"}, "name": "v"}}, http.StatusConflict},
		{"rename view onto a table", "POST", "/v1/lake/views/rename", map[string]any{
			"source":      map[string]any{"namespace": []string{"sales"}, "name": "v"},
			"destination": map[string]any{"namespace": []string{"sales"}, "name": "events"}}, http.StatusConflict},
		{"load a view as a table", "GET", "/v1/lake/namespaces/sales/tables/v", nil, http.StatusNotFound},
		{"load a table as a view", "GET", "/v1/lake/namespaces/sales/views/events", nil, http.StatusNotFound},
		{"drop a namespace holding a view", "DELETE", "/v1/lake/namespaces/sales", nil, http.StatusConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := env.call(t, tc.method, tc.path, "", tc.body)
			if code != tc.wantCode {
				t.Fatalf("%s %s = %d %v, want %d", tc.method, tc.path, code, body, tc.wantCode)
			}
		})
	}
	if code, body := env.call(t, "GET", "/v1/lake/namespaces/sales/views/events", "", nil); errType(body) != typeNoSuchView {
		t.Fatalf("load of a missing view = %d %v, want NoSuchViewException", code, body)
	}
}

// TestViewBadInput checks that spec-shaped but wrong bodies get a 400 with
// a sentence, never a 500.
func TestViewBadInput(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, true)
	env.bucket(t, "lake", catalog.FormatIceberg)
	if _, err := env.store.CreateNamespace(ctx, "lake", []string{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"type": "struct", "schema-id": 0, "fields": []any{
		map[string]any{"id": 1, "name": "n", "type": "long", "required": false}}}
	version := func(reps ...any) map[string]any {
		return map[string]any{"version-id": 1, "schema-id": 0, "timestamp-ms": 1, "summary": map[string]string{},
			"default-namespace": []string{"sales"}, "representations": reps}
	}
	sql := func(dialect string) map[string]any {
		return map[string]any{"type": "sql", "sql": "SELECT 1", "dialect": dialect}
	}
	good := map[string]any{"name": "v", "schema": schema, "view-version": version(sql("spark"))}
	if code, body := env.call(t, "POST", "/v1/lake/namespaces/sales/views", "", good); code != 200 {
		t.Fatalf("create = %d %v", code, body)
	}
	commit := "/v1/lake/namespaces/sales/views/v"
	cases := []struct {
		name, path string
		body       any
	}{
		{"no schema", "/v1/lake/namespaces/sales/views", map[string]any{"name": "w", "view-version": version(sql("spark"))}},
		{"no representations", "/v1/lake/namespaces/sales/views", map[string]any{"name": "w", "schema": schema, "view-version": version()}},
		{"dialect twice", "/v1/lake/namespaces/sales/views", map[string]any{"name": "w", "schema": schema, "view-version": version(sql("spark"), sql("Spark"))}},
		{"unknown requirement", commit, map[string]any{"requirements": []any{map[string]any{"type": "assert-table-uuid", "uuid": "x"}}, "updates": []any{}}},
		{"unknown update", commit, map[string]any{"updates": []any{map[string]any{"action": "add-snapshot"}}}},
		{"current version that does not exist", commit, map[string]any{"updates": []any{map[string]any{"action": "set-current-view-version", "view-version-id": 9}}}},
		{"-1 with nothing added", commit, map[string]any{"updates": []any{map[string]any{"action": "set-current-view-version", "view-version-id": -1}}}},
		{"uuid change", commit, map[string]any{"updates": []any{map[string]any{"action": "assign-uuid", "uuid": uuid.NewString()}}}},
		{"format version 2", commit, map[string]any{"updates": []any{map[string]any{"action": "upgrade-format-version", "format-version": 2}}}},
		{"location outside the bucket", commit, map[string]any{"updates": []any{map[string]any{"action": "set-location", "location": "file:///etc"}}}},
		{"register outside the bucket", "/v1/lake/namespaces/sales/register-view", map[string]any{"name": "r", "metadata-location": "file:///etc/passwd"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := env.call(t, "POST", tc.path, "", tc.body)
			if code != http.StatusBadRequest || errType(body) != typeBadRequest {
				t.Fatalf("= %d %v, want 400 BadRequestException", code, body)
			}
		})
	}
}

// TestViewHistoryLimit checks that version.history.num-entries bounds the
// versions a view keeps, and the log never names a version it dropped.
func TestViewHistoryLimit(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, true)
	env.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, env.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	ident := table.Identifier{"sales", "v"}
	if _, err := cat.CreateView(ctx, ident, viewVersion(t, view.NewRepresentation("SELECT 0", "spark")), viewSchema(),
		icecatalog.WithViewProperties(iceberggo.Properties{"version.history.num-entries": "3"})); err != nil {
		t.Fatal(err)
	}
	var last *view.View
	for i := 1; i <= 5; i++ {
		v := viewVersion(t, view.NewRepresentation("SELECT "+string(rune('0'+i)), "spark"))
		var err error
		last, err = cat.UpdateView(ctx, ident, nil, []view.Update{view.NewAddViewVersionUpdate(v), view.NewSetCurrentVersionUpdate(-1)})
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	var ids []int64
	for _, v := range last.Versions() {
		ids = append(ids, v.VersionID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []int64{4, 5, 6}) || last.CurrentVersion().VersionID != 6 {
		t.Fatalf("kept versions %v, current %d", ids, last.CurrentVersion().VersionID)
	}
	for _, e := range last.Metadata().VersionLog() {
		if !slices.Contains(ids, e.VersionID) {
			t.Fatalf("log names dropped version %d", e.VersionID)
		}
	}
}
