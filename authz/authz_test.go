package authz

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// postgresTests run again with every store on PostgreSQL.
var postgresTests = []persisttest.Test{
	{Name: "TestDecide", Fn: TestDecide},
	{Name: "TestRolesBecomeGrants", Fn: TestRolesBecomeGrants},
	{Name: "TestIndexFollowsChanges", Fn: TestIndexFollowsChanges},
}

func TestPostgres(t *testing.T) { persisttest.Run(t, postgresTests) }

func openStore(t *testing.T, dir string) *catalog.Store {
	t.Helper()
	path := persisttest.Path(t, filepath.Join(dir, "catalog.db"))
	s, err := catalog.Open(context.Background(), catalog.Options{Path: path, Warehouse: filepath.Join(dir, "warehouse"), BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// world is a catalog with two buckets, namespaces and tables to grant on.
func world(t *testing.T) *catalog.Store {
	t.Helper()
	s := openStore(t, t.TempDir())
	ctx := context.Background()
	for _, b := range []string{"sales", "people"} {
		if _, err := s.CreateBucket(ctx, catalog.CreateBucketInput{Name: b, Format: catalog.FormatLance}); err != nil {
			t.Fatal(err)
		}
		for _, ns := range [][]string{{"eu"}, {"eu", "fr"}, {"us"}} {
			if _, err := s.CreateNamespace(ctx, b, ns, nil); err != nil {
				t.Fatal(err)
			}
			for _, tb := range []string{"orders", "refunds"} {
				if _, _, err := s.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: b, Namespace: ns, Name: tb}, Format: catalog.FormatLance}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return s
}

func grant(t *testing.T, s *catalog.Store, who, priv, place string) {
	t.Helper()
	g, err := catalog.ParseGrantee(who)
	if err != nil {
		t.Fatal(err)
	}
	b, ns, tb, err := catalog.ParsePlace(place)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddGrant(context.Background(), catalog.Grant{Grantee: g, Bucket: b, Namespace: ns, Table: tb, Privilege: priv, CreatedBy: "test"}); err != nil {
		t.Fatalf("grant %s %s %s: %v", who, priv, place, err)
	}
}

func res(place string) identity.Resource {
	b, ns, tb, err := catalog.ParsePlace(place)
	if err != nil {
		panic(err)
	}
	return identity.Resource{Bucket: b, Namespace: ns, Table: tb}
}

func user(name string, groups ...string) identity.Principal {
	return identity.Principal{Kind: identity.User, ID: name, Groups: groups}
}

// TestDecide: grants are inherited downward and nowhere else; a group's
// grant reaches its members; each privilege implies what it should.
func TestDecide(t *testing.T) {
	s := world(t)
	grant(t, s, "user:nsreader", "read", "sales/eu")
	grant(t, s, "user:tablewriter", "write", "sales/eu/orders")
	grant(t, s, "user:maint", "maintain", "sales")
	grant(t, s, "user:boss", "manage", "*")
	grant(t, s, "group:analysts", "read", "people/us")
	a := New(s)
	ctx := context.Background()
	cases := []struct {
		who   identity.Principal
		priv  identity.Privilege
		place string
		want  bool
	}{
		{user("nsreader"), identity.Read, "sales/eu", true},
		{user("nsreader"), identity.Read, "sales/eu/orders", true},
		{user("nsreader"), identity.Read, "sales/eu.fr/orders", true}, // a child namespace is inside
		{user("nsreader"), identity.Read, "sales/us/orders", false},
		{user("nsreader"), identity.Read, "sales", false},
		{user("nsreader"), identity.Read, "people/eu/orders", false},
		{user("nsreader"), identity.Write, "sales/eu/orders", false},
		{user("tablewriter"), identity.Write, "sales/eu/orders", true},
		{user("tablewriter"), identity.Read, "sales/eu/orders", true},
		{user("tablewriter"), identity.Write, "sales/eu/refunds", false},
		{user("tablewriter"), identity.Maintain, "sales/eu/orders", false},
		{user("tablewriter"), identity.Manage, "sales/eu/orders", false},
		{user("maint"), identity.Maintain, "sales/us/refunds", true},
		{user("maint"), identity.Read, "sales", true},
		{user("maint"), identity.Write, "sales/us/refunds", false},
		{user("maint"), identity.Maintain, "people/us/refunds", false},
		{user("boss"), identity.Manage, "people/eu.fr/orders", true},
		{user("boss"), identity.Manage, "*", true},
		{user("carol", "analysts"), identity.Read, "people/us/orders", true},
		{user("carol", "analysts"), identity.Write, "people/us/orders", false},
		{user("carol"), identity.Read, "people/us/orders", false},
		{user("carol", "staff"), identity.Read, "people/us/orders", false},
		// The same name as another kind of grantee gets nothing of it.
		{identity.Principal{Kind: identity.APIKey, ID: "nsreader"}, identity.Read, "sales/eu", false},
		{identity.Principal{Kind: identity.Token, ID: "nsreader"}, identity.Read, "sales/eu", true},
		{identity.Principal{Kind: identity.Worker, ID: "w1"}, identity.Maintain, "people/us/orders", true},
		{identity.Principal{Kind: identity.Worker, ID: "w1"}, identity.Write, "people/us/orders", false},
		{identity.Principal{Kind: identity.System}, identity.Manage, "*", true},
		{identity.Principal{}, identity.Read, "sales", false},
	}
	for _, c := range cases {
		err := a.Decide(ctx, c.who, c.priv, res(c.place))
		if (err == nil) != c.want {
			t.Errorf("%s %s %s: %v, want allowed=%v", c.who, c.priv, c.place, err, c.want)
		}
		if err != nil && c.who.Kind != "" && !errors.Is(err, fault.Forbidden) {
			t.Errorf("%s %s %s: %v, want fault.Forbidden", c.who, c.priv, c.place, err)
		}
	}
	err := a.Decide(ctx, user("nsreader"), identity.Write, res("sales/eu/orders"))
	for _, want := range []string{"user nsreader", "write to table sales/eu/orders", "write privilege", "floe grant add user:nsreader write sales/eu/orders"} {
		if !strings.Contains(fault.Message(err, ""), want) {
			t.Errorf("refusal %q does not say %q", fault.Message(err, ""), want)
		}
	}
	if err := a.Decide(ctx, identity.Principal{}, identity.Read, res("sales")); !errors.Is(err, fault.Unauthenticated) {
		t.Errorf("the zero principal: %v, want Unauthenticated", err)
	}
}

// TestVisibleAndChildren: a listing shows a bucket or namespace to whoever
// holds something inside it, and only the parts that lead there.
func TestVisibleAndChildren(t *testing.T) {
	s := world(t)
	grant(t, s, "user:u", "read", "sales/eu.fr")
	grant(t, s, "user:u", "write", "people/us/refunds")
	r, err := New(s).Rights(context.Background(), user("u"))
	if err != nil {
		t.Fatal(err)
	}
	for place, want := range map[string]bool{
		"*": true, "sales": true, "sales/eu": true, "sales/eu.fr": true, "sales/eu.fr/orders": true,
		"sales/us": false, "sales/eu/orders": false, "people": true, "people/us": true, "people/us/refunds": true,
		"people/us/orders": false, "people/eu": false,
	} {
		if got := r.Visible(res(place)); got != want {
			t.Errorf("Visible(%s) = %v, want %v", place, got, want)
		}
	}
	check := func(what string, all bool, names []string, wantAll bool, want ...string) {
		t.Helper()
		if all != wantAll || !slices.Equal(names, want) {
			t.Errorf("%s = %v %q, want %v %q", what, all, names, wantAll, want)
		}
	}
	all, names := r.Children(res("*"))
	check("buckets", all, names, false, "people", "sales")
	all, names = r.Children(res("sales"))
	check("sales namespaces", all, names, false, "eu")
	all, names = r.Children(res("sales/eu"))
	check("sales/eu children", all, names, false, "fr")
	all, names = r.Children(res("sales/eu.fr"))
	check("sales/eu.fr children", all, names, true)
	all, names = r.Tables(res("people/us"))
	check("people/us tables", all, names, false, "refunds")
	all, names = r.Tables(res("sales/eu.fr"))
	check("sales/eu.fr tables", all, names, true)
	all, names = r.Tables(res("sales/eu"))
	check("sales/eu tables", all, names, false)
}

// TestRolesBecomeGrants: a user's or key's role is its first grant, so it
// means what it meant before grants; RoleNone means nothing until granted.
func TestRolesBecomeGrants(t *testing.T) {
	s := world(t)
	ctx := context.Background()
	if _, err := s.CreateUser(ctx, "ro", "password123", catalog.RoleReadonly); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateUser(ctx, "root", "password123", catalog.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	key := func(role catalog.Role, bucket string) identity.Principal {
		k, _, err := s.CreateAPIKey(ctx, "k", role, bucket, 0)
		if err != nil {
			t.Fatal(err)
		}
		return identity.FromKey(k, "x-api-key")
	}
	rw, ro, rwScoped, roScoped, none := key(catalog.RoleReadWrite, ""), key(catalog.RoleReadonly, ""),
		key(catalog.RoleReadWrite, "sales"), key(catalog.RoleReadonly, "sales"), key(catalog.RoleNone, "")
	anon := identity.FromKey(catalog.APIKey{ID: "anonymous", Role: catalog.RoleReadWrite}, "anonymous")
	a := New(s)
	for _, c := range []struct {
		who   identity.Principal
		priv  identity.Privilege
		place string
		want  bool
	}{
		{user("ro"), identity.Read, "people/us/orders", true},
		{user("ro"), identity.Write, "people/us/orders", false},
		{user("root"), identity.Manage, "*", true},
		{rw, identity.Manage, "*", true},
		{ro, identity.Read, "people/eu/orders", true},
		{ro, identity.Write, "people/eu/orders", false},
		{rwScoped, identity.Write, "sales/eu/orders", true},
		{rwScoped, identity.Maintain, "sales/eu/orders", true},
		{rwScoped, identity.Manage, "sales", true},
		{rwScoped, identity.Manage, "*", false},
		{rwScoped, identity.Read, "people/eu/orders", false},
		{roScoped, identity.Read, "sales/eu/orders", true},
		{roScoped, identity.Write, "sales/eu/orders", false},
		{roScoped, identity.Read, "people", false},
		{none, identity.Read, "sales/eu/orders", false},
		{anon, identity.Manage, "*", true},
	} {
		if err := a.Decide(ctx, c.who, c.priv, res(c.place)); (err == nil) != c.want {
			t.Errorf("%s (%s) %s %s: %v, want allowed=%v", c.who, c.who.Role, c.priv, c.place, err, c.want)
		}
	}
	// A revoked key's grants go with it.
	if err := s.RevokeAPIKey(ctx, rwScoped.ID); err != nil {
		t.Fatal(err)
	}
	left, err := s.ListGrants(ctx, catalog.GrantFilter{Grantee: &catalog.Grantee{Kind: catalog.GranteeAPIKey, ID: rwScoped.ID}})
	if err != nil || len(left) != 0 {
		t.Errorf("grants of a revoked key: %v %v, want none", left, err)
	}
}

// TestIndexFollowsChanges: a grant added or removed — here, or by another
// process on the same database (a CLI beside floe serve) — decides the very
// next request, without any wait.
func TestIndexFollowsChanges(t *testing.T) {
	s := world(t)
	ctx := context.Background()
	a := New(s)
	u := user("late")
	if a.Decide(ctx, u, identity.Read, res("sales/us/orders")) == nil {
		t.Fatal("allowed before any grant")
	}
	grant(t, s, "user:late", "read", "sales/us")
	if err := a.Decide(ctx, u, identity.Read, res("sales/us/orders")); err != nil {
		t.Fatalf("after the grant: %v", err)
	}
	if err := s.RemoveGrant(ctx, catalog.Grant{Grantee: catalog.Grantee{Kind: "user", ID: "late"}, Bucket: "sales", Namespace: []string{"us"}, Privilege: "read"}); err != nil {
		t.Fatal(err)
	}
	if a.Decide(ctx, u, identity.Read, res("sales/us/orders")) == nil {
		t.Fatal("allowed after the grant was removed")
	}
}

// TestIndexSeesOtherProcess: a second Store on the same SQLite file
// stands for `floe grant add` run beside floe serve.
func TestIndexSeesOtherProcess(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	ctx := context.Background()
	if _, err := s.CreateBucket(ctx, catalog.CreateBucketInput{Name: "bkt", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	a := New(s)
	u := user("cli")
	if a.Decide(ctx, u, identity.Read, res("bkt")) == nil {
		t.Fatal("allowed before any grant")
	}
	other := openStore(t, dir)
	grant(t, other, "user:cli", "read", "bkt")
	if err := a.Decide(ctx, u, identity.Read, res("bkt")); err != nil {
		t.Fatalf("after another process granted: %v", err)
	}
	// Writes that are not grants do not reload the index (the generation
	// is unchanged), and it still answers.
	before := a.snap.Load().idx
	if _, err := other.CreateBucket(ctx, catalog.CreateBucketInput{Name: "ccc", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if err := a.Decide(ctx, u, identity.Read, res("bkt")); err != nil {
		t.Fatal(err)
	}
	if a.snap.Load().idx != before {
		t.Error("a write that changed no grant rebuilt the index")
	}
}

// TestGrantsAcrossReplicas: on PostgreSQL, once the notification of a
// grant made on replica A has arrived on B, B decides by it; B's index
// needs no query per request while nothing changes.
func TestGrantsAcrossReplicas(t *testing.T) {
	dsn, dir := pgtest.DSN(t), t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	a, _ := replica(t, dsn, wh, "A")
	b, busB := replica(t, dsn, wh, "B")
	heard := make(chan struct{}, 16)
	busB.Handle("catalog.grants", func(notify.Message) { heard <- struct{}{} })
	ctx := context.Background()
	if _, err := a.CreateBucket(ctx, catalog.CreateBucketInput{Name: "bkt", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	az := New(b)
	u := user("remote")
	if az.Decide(ctx, u, identity.Read, res("bkt")) == nil {
		t.Fatal("allowed before any grant")
	}
	st, ok := b.GrantStamp()
	if !ok {
		t.Fatal("B's grant stamp is not trusted while its bus listens")
	}
	if az.snap.Load().stamp != st {
		t.Error("B's index is not stamped with the current stamp after a decision")
	}
	grant(t, a, "user:remote", "read", "bkt")
	select {
	case <-heard:
	case <-time.After(30 * time.Second):
		t.Fatal("B never heard of A's grant")
	}
	if err := az.Decide(ctx, u, identity.Read, res("bkt")); err != nil {
		t.Fatalf("B after A's grant arrived: %v", err)
	}
}

func replica(t *testing.T, dsn, warehouse, name string) (*catalog.Store, *notify.Bus) {
	t.Helper()
	ctx := context.Background()
	db, err := persist.Open(ctx, persist.Options{Path: dsn})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, catalog.Migrations()); err != nil {
		t.Fatal(err)
	}
	s, err := catalog.New(db, catalog.Options{Warehouse: warehouse, BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	bus := notify.New(db, notify.Options{Replica: name})
	runtest.Start(t, bus)
	t.Cleanup(func() { bus.Close(); s.Close(); db.Close() })
	select {
	case <-bus.Listening():
	case <-time.After(30 * time.Second):
		t.Fatal("bus never listened")
	}
	s.FollowGrants(bus)
	return s, bus
}
