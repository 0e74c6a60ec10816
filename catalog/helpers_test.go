package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) {
	if arg := os.Getenv(dropHelperEnv); arg != "" {
		os.Exit(dropHelper(arg))
	}
	os.Exit(pgtest.Main(m))
}

// postgresInvariants are the catalog's invariant tests (names, format
// conflicts, idempotent create, cascade, the create races, drop against
// deregister, API keys, users, two stores on one database). TestPostgres
// runs each again with every store on PostgreSQL; the rest of the package
// runs on SQLite, the default.
var postgresInvariants = []persisttest.Test{
	{Name: "TestUsers", Fn: TestUsers},
	{Name: "TestIdPUsers", Fn: TestIdPUsers},
	{Name: "TestEnsureAdmin", Fn: TestEnsureAdmin},
	{Name: "TestAPIKeys", Fn: TestAPIKeys},
	{Name: "TestWorkerTokens", Fn: TestWorkerTokens},
	{Name: "TestSystemCredentials", Fn: TestSystemCredentials},
	{Name: "TestCreateBucket", Fn: TestCreateBucket},
	{Name: "TestCreateBucketRace", Fn: TestCreateBucketRace},
	{Name: "TestListBucketsCountsAndPages", Fn: TestListBucketsCountsAndPages},
	{Name: "TestDeleteBucket", Fn: TestDeleteBucket},
	{Name: "TestTableCountFollowsChanges", Fn: TestTableCountFollowsChanges},
	{Name: "TestListTableNamesSeesEveryChange", Fn: TestListTableNamesSeesEveryChange},
	{Name: "TestNamePageCachedUntilAChange", Fn: TestNamePageCachedUntilAChange},
	{Name: "TestBucketTableGenerations", Fn: TestBucketTableGenerations},
	{Name: "TestCreateNamespace", Fn: TestCreateNamespace},
	{Name: "TestListAndUpdateNamespaces", Fn: TestListAndUpdateNamespaces},
	{Name: "TestDropNamespace", Fn: TestDropNamespace},
	{Name: "TestRemoteLocationTables", Fn: TestRemoteLocationTables},
	{Name: "TestTwoStoresWriteConcurrently", Fn: TestTwoStoresWriteConcurrently},
	{Name: "TestListTables", Fn: TestListTables},
	{Name: "TestListAllTables", Fn: TestListAllTables},
	{Name: "TestTableKeys", Fn: TestTableKeys},
	{Name: "TestCreateTableInvariants", Fn: TestCreateTableInvariants},
	{Name: "TestCreateTableRace", Fn: TestCreateTableRace},
	{Name: "TestCreateTablesAllOrNone", Fn: TestCreateTablesAllOrNone},
	{Name: "TestLanceLifecycle", Fn: TestLanceLifecycle},
	{Name: "TestRegisterTable", Fn: TestRegisterTable},
	{Name: "TestDropTable", Fn: TestDropTable},
	{Name: "TestRenameTable", Fn: TestRenameTable},
	{Name: "TestCommitTable", Fn: TestCommitTable},
	{Name: "TestViews", Fn: TestViews},
	{Name: "TestLanceVersions", Fn: TestLanceVersions},
	{Name: "TestLanceVersionsBatchAllOrNone", Fn: TestLanceVersionsBatchAllOrNone},
	{Name: "TestLanceVersionsTwoStores", Fn: TestLanceVersionsTwoStores},
	{Name: "TestTableTags", Fn: TestTableTags},
	{Name: "TestSearch", Fn: TestSearch},
	{Name: "TestSearchIndexesExistingEntries", Fn: TestSearchIndexesExistingEntries},
	{Name: "TestSoftDeleteDropUndropPurge", Fn: TestSoftDeleteDropUndropPurge},
	{Name: "TestSoftDeleteHoldEnds", Fn: TestSoftDeleteHoldEnds},
	{Name: "TestSoftDeletePurgeOnceAcrossStores", Fn: TestSoftDeletePurgeOnceAcrossStores},
	{Name: "TestProtection", Fn: TestProtection},
	{Name: "TestOverwriteRepro", Fn: TestOverwriteRepro},
	{Name: "TestCascadeKeepsForeignData", Fn: TestCascadeKeepsForeignData},
	{Name: "TestBucketCascadeUndrop", Fn: TestBucketCascadeUndrop},
	{Name: "TestSearchSkipsDeletedBuckets", Fn: TestSearchSkipsDeletedBuckets},
	{Name: "TestNameFilterMatchesScan", Fn: TestNameFilterMatchesScan},
	{Name: "TestFilterChoosesByCandidates", Fn: TestFilterChoosesByCandidates},
}

func TestPostgres(t *testing.T) { persisttest.Run(t, postgresInvariants) }

// catalogPath is the database a store on dir opens: dir/catalog.db, or
// under TestPostgres the PostgreSQL database standing for it.
func catalogPath(t *testing.T, dir string) string {
	t.Helper()
	return persisttest.Path(t, filepath.Join(dir, "catalog.db"))
}

// newTestStore opens a Store on a fresh directory: catalog.db plus a
func newTestStore(t *testing.T) *Store {
	t.Helper()
	dir := t.TempDir()
	return openAt(t, dir)
}

func openAt(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{Path: catalogPath(t, dir), Warehouse: filepath.Join(dir, "warehouse"), BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustBucket(t testing.TB, s *Store, name string, f Format) Bucket {
	t.Helper()
	b, err := s.CreateBucket(context.Background(), CreateBucketInput{Name: name, Format: f, Owner: "tester"})
	if err != nil {
		t.Fatalf("CreateBucket(%s): %v", name, err)
	}
	return b
}

func mustNamespace(t testing.TB, s *Store, bucket string, levels ...string) Namespace {
	t.Helper()
	ns, err := s.CreateNamespace(context.Background(), bucket, levels, nil)
	if err != nil {
		t.Fatalf("CreateNamespace(%s, %v): %v", bucket, levels, err)
	}
	return ns
}

func mustTable(t *testing.T, s *Store, ref TableRef, f Format) Table {
	t.Helper()
	tb, created, err := s.CreateTable(context.Background(), CreateTableInput{TableRef: ref, Format: f})
	if err != nil || !created {
		t.Fatalf("CreateTable(%v, %s) = created %v, %v", ref, f, created, err)
	}
	return tb
}

// wantKind fails unless err is a *fault.Error of the kind.
func wantKind(t *testing.T, err error, kind error) *fault.Error {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error = %v, want kind %v", err, kind)
	}
	var ce *fault.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *fault.Error", err)
	}
	return ce
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(diskPath(path))
	if err == nil {
		return true
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat %s: %v", path, err)
	}
	return false
}

// writeData puts a fake dataset file in a table location so tests can see
// whether data survives.
func writeData(t *testing.T, loc string) string {
	t.Helper()
	p := filepath.Join(diskPath(loc), "data", "part-0.bin")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("rows"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// diskPath is the local path of a canonical file:// location (or a path).
func diskPath(loc string) string { return strings.TrimPrefix(loc, "file://") }
