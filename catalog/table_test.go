package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floe/floe/fault"
)

// lakeFixture makes buckets of every declaration, each with namespace "ns".
func lakeFixture(t *testing.T) *Store {
	t.Helper()
	s := newTestStore(t)
	for name, f := range map[string]Format{"lance-b": FormatLance, "ice-b": FormatIceberg, "any-b": FormatUnset} {
		mustBucket(t, s, name, f)
		mustNamespace(t, s, name, "ns")
	}
	return s
}

func ref(bucket, name string) TableRef {
	return TableRef{Bucket: bucket, Namespace: []string{"ns"}, Name: name}
}

func TestCreateTableInvariants(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	lance := mustTable(t, s, ref("any-b", "vectors"), FormatLance)
	ice := mustTable(t, s, ref("any-b", "orders"), FormatIceberg)

	t.Run("lance entry", func(t *testing.T) {
		wantLoc := "file://" + filepath.Join(s.Warehouse(), "any-b", "ns", "vectors.lance")
		if lance.Location != wantLoc || lance.State != StateDeclared {
			t.Errorf("location %q state %q", lance.Location, lance.State)
		}
		if lance.ARN != "arn:floe:s3tables:local:000000000000:bucket/any-b/table/"+lance.ID {
			t.Errorf("ARN %q", lance.ARN)
		}
		if !exists(t, filepath.Join(diskPath(wantLoc), ".lance-reserved")) {
			t.Error("no .lance-reserved marker")
		}
		if lance.VersionToken == "" || lance.CreatedAt.IsZero() || lance.ModifiedAt.IsZero() {
			t.Errorf("token/times missing: %+v", lance)
		}
	})
	t.Run("iceberg entry", func(t *testing.T) {
		if ice.Location != "file://"+filepath.Join(s.Warehouse(), "any-b", "ns", "orders") || ice.State != StateNone {
			t.Errorf("location %q state %q", ice.Location, ice.State)
		}
	})

	cases := []struct {
		name string
		in   CreateTableInput
		kind error  // nil = idempotent success
		same *Table // for idempotent: the entry it must return
		msg  string
	}{
		{"same format again is idempotent", CreateTableInput{TableRef: ref("any-b", "vectors"), Format: FormatLance}, nil, &lance, ""},
		{"iceberg again is idempotent", CreateTableInput{TableRef: ref("any-b", "orders"), Format: FormatIceberg}, nil, &ice, ""},
		{"other format on a lance name", CreateTableInput{TableRef: ref("any-b", "vectors"), Format: FormatIceberg}, fault.Conflict, nil, "as a LANCE table"},
		{"other format on an iceberg name", CreateTableInput{TableRef: ref("any-b", "orders"), Format: FormatLance}, fault.Conflict, nil, "as an ICEBERG table"},
		{"lance bucket refuses iceberg", CreateTableInput{TableRef: ref("lance-b", "t"), Format: FormatIceberg}, fault.Conflict, nil, "declared for LANCE"},
		{"iceberg bucket refuses lance", CreateTableInput{TableRef: ref("ice-b", "t"), Format: FormatLance}, fault.Conflict, nil, "declared for ICEBERG"},
		{"missing namespace", CreateTableInput{TableRef: TableRef{Bucket: "any-b", Namespace: []string{"nope"}, Name: "t"}, Format: FormatLance}, fault.NotFound, nil, `namespace "nope"`},
		{"missing bucket", CreateTableInput{TableRef: ref("nope-b", "t"), Format: FormatLance}, fault.NotFound, nil, `bucket "nope-b"`},
		{"no format", CreateTableInput{TableRef: ref("any-b", "t")}, fault.Invalid, nil, "LANCE or ICEBERG"},
		{"bad name", CreateTableInput{TableRef: ref("any-b", "T$"), Format: FormatLance}, fault.Invalid, nil, "table name"},
		{"location is the warehouse", CreateTableInput{TableRef: ref("any-b", "w"), Format: FormatIceberg, Location: s.Warehouse()}, fault.Invalid, nil, "outside the bucket's directory"},
		{"location is another table's", CreateTableInput{TableRef: ref("any-b", "dup"), Format: FormatIceberg, Location: ice.Location}, fault.Conflict, nil, `is the data of table "orders"`},
		{"location is inside another table's", CreateTableInput{TableRef: ref("any-b", "in"), Format: FormatIceberg, Location: ice.Location + "/metadata"}, fault.Conflict, nil, `inside or around the data of table "orders"`},
		{"location is around another table's", CreateTableInput{TableRef: ref("any-b", "around"), Format: FormatLance, Location: s.Warehouse() + "/any-b/ns/"}, fault.Invalid, nil, "namespace directory"},
		{"location is relative", CreateTableInput{TableRef: ref("any-b", "rel"), Format: FormatIceberg, Location: "any-b/ns/rel"}, fault.Invalid, nil, "relative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, created, err := s.CreateTable(ctx, tc.in)
			if tc.kind == nil {
				if err != nil || created || got.ID != tc.same.ID {
					t.Fatalf("got created=%v id=%s err=%v, want created=false id=%s", created, got.ID, err, tc.same.ID)
				}
				return
			}
			ce := wantKind(t, err, tc.kind)
			if !strings.Contains(ce.Message, tc.msg) {
				t.Errorf("message %q lacks %q", ce.Message, tc.msg)
			}
		})
	}
	t.Run("matching declared buckets accept", func(t *testing.T) {
		mustTable(t, s, ref("lance-b", "t"), FormatLance)
		mustTable(t, s, ref("ice-b", "t"), FormatIceberg)
	})
}

func TestCreateTableRace(t *testing.T) {
	s := lakeFixture(t)
	const n = 16
	type result struct {
		t       Table
		created bool
		err     error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := FormatLance
			if i%4 == 3 { // a quarter race with the other format
				f = FormatIceberg
			}
			tb, created, err := s.CreateTable(context.Background(), CreateTableInput{TableRef: ref("any-b", "hot"), Format: f})
			results[i] = result{tb, created, err}
		}()
	}
	wg.Wait()
	var winner Table
	createdCount := 0
	for _, r := range results {
		if r.created {
			createdCount++
			winner = r.t
		}
	}
	if createdCount != 1 {
		t.Fatalf("%d goroutines created the table, want exactly 1", createdCount)
	}
	for i, r := range results {
		switch {
		case r.err == nil:
			if r.t.ID != winner.ID || r.t.Format != winner.Format {
				t.Errorf("goroutine %d got table %s/%s, want %s/%s", i, r.t.ID, r.t.Format, winner.ID, winner.Format)
			}
		case errors.Is(r.err, fault.Conflict):
			if r.t.Format == winner.Format && r.t.ID != "" {
				t.Errorf("goroutine %d: conflict with a result", i)
			}
		default:
			t.Errorf("goroutine %d: %v", i, r.err)
		}
	}
}

func TestLanceLifecycle(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	r := ref("lance-b", "docs")
	tb := mustTable(t, s, r, FormatLance)
	data := writeData(t, tb.Location)

	t.Run("state refresh when _versions appears", func(t *testing.T) {
		if err := os.MkdirAll(filepath.Join(diskPath(tb.Location), "_versions"), 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetTable(ctx, r)
		if err != nil || got.State != StateCreated {
			t.Fatalf("GetTable state %q, %v", got.State, err)
		}
		byID, err := s.GetTableByID(ctx, tb.ID)
		if err != nil || byID.State != StateCreated {
			t.Fatalf("GetTableByID state %q, %v", byID.State, err)
		}
	})
	t.Run("deregister keeps every byte", func(t *testing.T) {
		before := snapshot(t, diskPath(tb.Location))
		got, err := s.DeregisterTable(ctx, r)
		if err != nil || got.State != StateDeregistered {
			t.Fatalf("DeregisterTable = %q, %v", got.State, err)
		}
		after := snapshot(t, diskPath(tb.Location))
		if len(before) != len(after) {
			t.Fatalf("files before %v after %v", before, after)
		}
		for p, c := range before {
			if after[p] != c {
				t.Errorf("%s changed", p)
			}
		}
		visible, _, _ := s.ListTables(ctx, "lance-b", []string{"ns"}, ListTablesOptions{IncludeDeclared: true})
		if len(visible) != 0 {
			t.Errorf("deregistered table listed: %v", visible)
		}
		hidden, _, _ := s.ListTables(ctx, "lance-b", []string{"ns"}, ListTablesOptions{IncludeDeclared: true, IncludeDeregistered: true})
		if len(hidden) != 1 {
			t.Errorf("IncludeDeregistered listed %d", len(hidden))
		}
		if g, err := s.GetTable(ctx, r); err != nil || g.State != StateDeregistered {
			t.Errorf("GetTable of deregistered = %q, %v", g.State, err)
		}
		if b, _ := s.GetBucket(ctx, "lance-b"); b.TableCount != 0 {
			t.Errorf("TableCount %d counts a deregistered table", b.TableCount)
		}
	})
	t.Run("declare again revives with the same id", func(t *testing.T) {
		got, created, err := s.CreateTable(ctx, CreateTableInput{TableRef: r, Format: FormatLance})
		if err != nil || !created || got.ID != tb.ID || got.State != StateCreated {
			t.Fatalf("revive = id %s state %q created %v, %v", got.ID, got.State, created, err)
		}
		if exists(t, filepath.Join(diskPath(tb.Location), ".lance-deregistered")) || !exists(t, data) {
			t.Error("marker left or data lost")
		}
	})
	t.Run("deregistering an iceberg table is refused", func(t *testing.T) {
		mustTable(t, s, ref("any-b", "ice"), FormatIceberg)
		_, err := s.DeregisterTable(ctx, ref("any-b", "ice"))
		wantKind(t, err, fault.Conflict)
	})
	t.Run("SetLanceState", func(t *testing.T) {
		if err := s.SetLanceState(ctx, tb.ID, StateDeclared); err != nil {
			t.Fatal(err)
		}
		wantKind(t, s.SetLanceState(ctx, tb.ID, "bogus"), fault.Invalid)
		wantKind(t, s.SetLanceState(ctx, "00000000-0000-0000-0000-000000000000", StateCreated), fault.NotFound)
	})
}

// snapshot reads every file under dir, keyed by relative path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRegisterTable(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	ext := filepath.Join(s.Warehouse(), "lance-b", "imports", "existing.lance")
	data := writeData(t, ext)
	if err := os.MkdirAll(filepath.Join(ext, "_versions"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := ref("lance-b", "imported")
	tb, err := s.RegisterTable(ctx, r, ext, false)
	if err != nil || tb.Location != "file://"+ext || tb.State != StateCreated {
		t.Fatalf("RegisterTable = %+v, %v", tb, err)
	}
	other := filepath.Join(s.Warehouse(), "lance-b", "imports", "other.lance")
	writeData(t, other)

	cases := []struct {
		name      string
		ref       TableRef
		loc       string
		overwrite bool
		kind      error
	}{
		{"no location", r, "", false, fault.Invalid},
		{"visible entry without overwrite", r, other, false, fault.AlreadyExists},
		{"iceberg bucket", ref("ice-b", "x"), other, false, fault.Conflict},
		{"missing namespace", TableRef{Bucket: "lance-b", Namespace: []string{"zz"}, Name: "x"}, other, false, fault.NotFound},
		{"bucket directory", ref("lance-b", "x"), filepath.Join(s.Warehouse(), "lance-b"), false, fault.Invalid},
		{"outside the bucket", ref("lance-b", "x"), filepath.Join(t.TempDir(), "x.lance"), false, fault.Invalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.RegisterTable(ctx, tc.ref, tc.loc, tc.overwrite)
			wantKind(t, err, tc.kind)
		})
	}
	t.Run("overwrite repoints and deletes nothing", func(t *testing.T) {
		got, err := s.RegisterTable(ctx, r, other, true)
		if err != nil || got.Location != "file://"+other || got.ID != tb.ID || got.VersionToken == tb.VersionToken {
			t.Fatalf("overwrite = %+v, %v", got, err)
		}
		if !exists(t, data) {
			t.Error("overwrite deleted the old data")
		}
	})
	t.Run("deregistered entry is revived", func(t *testing.T) {
		if _, err := s.DeregisterTable(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := s.RegisterTable(ctx, r, ext, false)
		if err != nil || got.ID != tb.ID || got.State != StateCreated || got.Location != "file://"+ext {
			t.Fatalf("revive = %+v, %v", got, err)
		}
		if exists(t, filepath.Join(other, ".lance-deregistered")) {
			t.Error("deregistered marker left at the old location")
		}
	})
	t.Run("other format holds the name", func(t *testing.T) {
		mustTable(t, s, ref("any-b", "ice"), FormatIceberg)
		_, err := s.RegisterTable(ctx, ref("any-b", "ice"), other+"2", true)
		wantKind(t, err, fault.Conflict)
	})
}

func TestDropTable(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	t.Run("deletes entry and data", func(t *testing.T) {
		tb := mustTable(t, s, ref("any-b", "gone"), FormatLance)
		writeData(t, tb.Location)
		got, err := s.DropTable(ctx, ref("any-b", "gone"))
		if err != nil || got.ID != tb.ID {
			t.Fatalf("DropTable = %v, %v", got.ID, err)
		}
		if exists(t, tb.Location) {
			t.Error("data left behind")
		}
		_, err = s.GetTable(ctx, ref("any-b", "gone"))
		wantKind(t, err, fault.NotFound)
		again := mustTable(t, s, ref("any-b", "gone"), FormatLance)
		if again.ID == tb.ID {
			t.Error("re-created table kept the old table id")
		}
	})
	protected := []struct {
		name, loc, why string
	}{
		{"warehouse root", "WH", "outside the bucket's directory"},
		{"bucket directory", "WH/any-b", "bucket's own directory"},
		{"namespace directory", "WH/any-b/ns", "namespace directory"},
		{"file-system root", "/", "outside the bucket's directory"},
		{"empty", "", "empty"},
		{"above the warehouse", "WH/..", "'..'"},
		{"another bucket", "WH/other-b/ns/p", "outside the bucket's directory"},
	}
	for _, tc := range protected {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			s := lakeFixture(t) // no other tables: only the directory rule can refuse
			tb := mustTable(t, s, ref("any-b", "p"), FormatIceberg)
			loc := strings.Replace(tc.loc, "WH", s.Warehouse(), 1)
			// Point the entry somewhere dangerous behind the store's back,
			// as a hand-edited or damaged catalog might.
			if _, err := s.db.ExecContext(context.Background(), `UPDATE tables SET location = ? WHERE id = ?`, loc, tb.ID); err != nil {
				t.Fatal(err)
			}
			_, err := s.DropTable(ctx, ref("any-b", "p"))
			ce := wantKind(t, err, fault.Conflict)
			if !strings.Contains(ce.Message, tc.why) {
				t.Errorf("message %q does not say %q", ce.Message, tc.why)
			}
			if !exists(t, filepath.Join(s.Warehouse(), "any-b", "ns")) {
				t.Fatal("refused drop deleted a directory")
			}
		})
	}
	t.Run("refuses a location holding another table", func(t *testing.T) {
		inner := mustTable(t, s, ref("any-b", "inner"), FormatIceberg)
		outer := mustTable(t, s, ref("any-b", "outer"), FormatIceberg)
		if _, err := s.db.ExecContext(context.Background(), `UPDATE tables SET location = ? WHERE id = ?`, strings.TrimSuffix(inner.Location, "/inner")+"/x", outer.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.ExecContext(context.Background(), `UPDATE tables SET location = ? WHERE id = ?`, strings.TrimSuffix(inner.Location, "/inner")+"/x/inner", inner.ID); err != nil {
			t.Fatal(err)
		}
		_, err := s.DropTable(ctx, ref("any-b", "outer"))
		wantKind(t, err, fault.Conflict)
	})
	t.Run("forget keeps data", func(t *testing.T) {
		tb := mustTable(t, s, ref("any-b", "kept"), FormatIceberg)
		data := writeData(t, tb.Location)
		if _, err := s.ForgetTable(ctx, ref("any-b", "kept")); err != nil {
			t.Fatal(err)
		}
		if !exists(t, data) {
			t.Error("forget deleted data")
		}
	})
}

func TestRenameTable(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	mustNamespace(t, s, "any-b", "other")
	tb := mustTable(t, s, ref("any-b", "old"), FormatLance)
	data := writeData(t, tb.Location)
	mustTable(t, s, ref("any-b", "taken"), FormatIceberg)

	cases := []struct {
		name string
		ns   []string
		to   string
		kind error
	}{
		{"name taken", []string{"ns"}, "taken", fault.AlreadyExists},
		{"missing namespace", []string{"zz"}, "x", fault.NotFound},
		{"bad name", []string{"ns"}, "x/y", fault.Invalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.RenameTable(ctx, ref("any-b", "old"), tc.ns, tc.to)
			wantKind(t, err, tc.kind)
		})
	}
	t.Run("a stale version token refuses the rename", func(t *testing.T) {
		_, err := s.RenameTableAtVersion(ctx, ref("any-b", "old"), []string{"other"}, "new", "not-the-token")
		wantKind(t, err, fault.Conflict)
		if _, err := s.GetTable(ctx, ref("any-b", "old")); err != nil {
			t.Fatalf("a refused rename moved the table: %v", err)
		}
	})
	t.Run("moves the entry, keeps data and id", func(t *testing.T) {
		cur, err := s.GetTable(ctx, ref("any-b", "old"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.RenameTableAtVersion(ctx, ref("any-b", "old"), []string{"other"}, "new", cur.VersionToken)
		if err != nil || got.ID != tb.ID || got.Location != tb.Location || got.Name != "new" {
			t.Fatalf("RenameTable = %+v, %v", got, err)
		}
		if !exists(t, data) {
			t.Error("rename moved or deleted data")
		}
		if _, err := s.GetTable(ctx, ref("any-b", "old")); !errors.Is(err, fault.NotFound) {
			t.Errorf("old name still resolves: %v", err)
		}
		moved, err := s.GetTable(ctx, TableRef{Bucket: "any-b", Namespace: []string{"other"}, Name: "new"})
		if err != nil || moved.ID != tb.ID {
			t.Errorf("new name: %v %v", moved.ID, err)
		}
	})
	t.Run("re-creating the old name gets its own location", func(t *testing.T) {
		again := mustTable(t, s, ref("any-b", "old"), FormatLance)
		if again.Location == tb.Location {
			t.Fatal("new table shares the renamed table's data directory")
		}
	})
}

func TestCommitTable(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	tb := mustTable(t, s, ref("ice-b", "orders"), FormatIceberg)
	got, err := s.CommitTable(ctx, tb.ID, tb.VersionToken, "s3://x/metadata/00001.json", map[string]string{"owner": "ana"})
	if err != nil || got.MetadataLocation != "s3://x/metadata/00001.json" || got.VersionToken == tb.VersionToken || got.Properties["owner"] != "ana" {
		t.Fatalf("CommitTable = %+v, %v", got, err)
	}
	t.Run("stale token conflicts", func(t *testing.T) {
		_, err := s.CommitTable(ctx, tb.ID, tb.VersionToken, "s3://x/metadata/00002.json", nil)
		wantKind(t, err, fault.Conflict)
		cur, _ := s.GetTableByID(ctx, tb.ID)
		if cur.MetadataLocation != got.MetadataLocation {
			t.Error("a refused commit changed the table")
		}
	})
	t.Run("concurrent commits: one wins", func(t *testing.T) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.CommitTable(ctx, tb.ID, got.VersionToken, "m.json", nil); err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				} else if !errors.Is(err, fault.Conflict) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Errorf("%d commits won with one token", wins)
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		_, err := s.CommitTable(ctx, "00000000-0000-0000-0000-000000000000", "x", "m", nil)
		wantKind(t, err, fault.NotFound)
	})
}
