package catalog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floe/floe/fault"
)

func TestCreateBucket(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	b, err := s.CreateBucket(ctx, CreateBucketInput{Name: "lake", Format: FormatLance, Owner: "ana", Tags: map[string]string{"team": "data"}})
	if err != nil {
		t.Fatal(err)
	}
	if b.ARN != "arn:floe:s3tables:local:000000000000:bucket/lake" {
		t.Errorf("ARN %q", b.ARN)
	}
	if !exists(t, filepath.Join(s.Warehouse(), "lake")) {
		t.Error("bucket directory not created")
	}
	got, err := s.GetBucket(ctx, "lake")
	if err != nil {
		t.Fatal(err)
	}
	if got.Format != FormatLance || got.Owner != "ana" || got.Tags["team"] != "data" || got.CreatedAt.IsZero() {
		t.Errorf("GetBucket = %+v", got)
	}

	cases := []struct {
		name string
		in   CreateBucketInput
		kind error
	}{
		{"taken, same format", CreateBucketInput{Name: "lake", Format: FormatLance}, fault.AlreadyExists},
		{"taken, other format", CreateBucketInput{Name: "lake", Format: FormatIceberg}, fault.AlreadyExists},
		{"bad name", CreateBucketInput{Name: "Lake"}, fault.Invalid},
		{"bad format", CreateBucketInput{Name: "other", Format: "DELTA"}, fault.Invalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CreateBucket(ctx, tc.in)
			wantKind(t, err, tc.kind)
		})
	}
	t.Run("unset format", func(t *testing.T) {
		b := mustBucket(t, s, "legacy", FormatUnset)
		if b.Format != FormatUnset {
			t.Errorf("format %q", b.Format)
		}
	})
	t.Run("missing bucket", func(t *testing.T) {
		_, err := s.GetBucket(ctx, "nope")
		wantKind(t, err, fault.NotFound)
	})
}

func TestCreateBucketRace(t *testing.T) {
	s := newTestStore(t)
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.CreateBucket(context.Background(), CreateBucketInput{Name: "race", Format: FormatIceberg})
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, fault.AlreadyExists):
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d creations succeeded, want exactly 1", ok)
	}
}

func TestListBucketsCountsAndPages(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	for i := range 5 {
		name := fmt.Sprintf("b%d-lake", i)
		mustBucket(t, s, name, FormatUnset)
		mustNamespace(t, s, name, "ns")
		for j := range i {
			mustTable(t, s, TableRef{Bucket: name, Namespace: []string{"ns"}, Name: fmt.Sprintf("t%d", j)}, FormatIceberg)
		}
	}
	var seen []string
	after := ""
	for page := 0; ; page++ {
		items, next, err := s.ListBuckets(ctx, ListOptions{After: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range items {
			seen = append(seen, b.Name)
			var want int
			fmt.Sscanf(b.Name, "b%d-lake", &want)
			if b.TableCount != want {
				t.Errorf("%s TableCount = %d, want %d", b.Name, b.TableCount, want)
			}
		}
		if next == "" {
			break
		}
		if page > 5 {
			t.Fatal("pagination does not end")
		}
		after = next
	}
	if got := strings.Join(seen, ","); got != "b0-lake,b1-lake,b2-lake,b3-lake,b4-lake" {
		t.Errorf("listed %s", got)
	}
}

func TestDeleteBucket(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "full", FormatLance)
	mustNamespace(t, s, "full", "a")
	mustNamespace(t, s, "full", "a", "b")
	tb := mustTable(t, s, TableRef{Bucket: "full", Namespace: []string{"a", "b"}, Name: "t"}, FormatLance)
	data := writeData(t, tb.Location)

	t.Run("non-empty refuses", func(t *testing.T) {
		ce := wantKind(t, s.DeleteBucket(ctx, "full", false), fault.NotEmpty)
		if !strings.Contains(ce.Message, "cascade") {
			t.Errorf("message %q does not say what to do", ce.Message)
		}
		if !exists(t, data) {
			t.Error("refused delete removed data")
		}
	})
	t.Run("cascade deletes entries and data", func(t *testing.T) {
		if err := s.DeleteBucket(ctx, "full", true); err != nil {
			t.Fatal(err)
		}
		if exists(t, tb.Location) || exists(t, filepath.Join(s.Warehouse(), "full")) {
			t.Error("cascade left data behind")
		}
		_, err := s.GetBucket(ctx, "full")
		wantKind(t, err, fault.NotFound)
		_, err = s.GetTableByID(ctx, tb.ID)
		wantKind(t, err, fault.NotFound)
	})
	t.Run("empty bucket", func(t *testing.T) {
		mustBucket(t, s, "empty", FormatUnset)
		if err := s.DeleteBucket(ctx, "empty", false); err != nil {
			t.Fatal(err)
		}
		if exists(t, filepath.Join(s.Warehouse(), "empty")) {
			t.Error("bucket directory left")
		}
	})
	t.Run("missing", func(t *testing.T) {
		wantKind(t, s.DeleteBucket(ctx, "gone", false), fault.NotFound)
	})
}

func TestTableCountFollowsChanges(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "lake", FormatUnset)
	mustBucket(t, s, "other", FormatUnset)
	mustNamespace(t, s, "lake", "ns")
	mustNamespace(t, s, "lake", "ns2")
	r := func(name string) TableRef { return TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: name} }
	steps := []struct {
		name string
		do   func() error
		want int
	}{
		{"create lance", func() error {
			_, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: r("a"), Format: FormatLance})
			return err
		}, 1},
		{"create iceberg", func() error {
			_, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: r("b"), Format: FormatIceberg})
			return err
		}, 2},
		{"idempotent create", func() error {
			_, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: r("b"), Format: FormatIceberg})
			return err
		}, 2},
		{"deregister", func() error { _, err := s.DeregisterTable(ctx, r("a")); return err }, 1},
		{"deregister again", func() error { _, err := s.DeregisterTable(ctx, r("a")); return err }, 1},
		{"declare revives", func() error {
			_, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: r("a"), Format: FormatLance})
			return err
		}, 2},
		{"rename across namespaces", func() error { _, err := s.RenameTable(ctx, r("b"), []string{"ns2"}, "b2"); return err }, 2},
		{"commit", func() error {
			tb, _ := s.GetTable(ctx, TableRef{Bucket: "lake", Namespace: []string{"ns2"}, Name: "b2"})
			_, err := s.CommitTable(ctx, tb.ID, tb.VersionToken, "m.json", nil)
			return err
		}, 2},
		{"drop", func() error { _, err := s.DropTable(ctx, r("a")); return err }, 1},
		{"cascade namespace", func() error { return s.DropNamespace(ctx, "lake", []string{"ns2"}, true) }, 0},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := st.do(); err != nil {
				t.Fatal(err)
			}
			b, err := s.GetBucket(ctx, "lake")
			if err != nil || b.TableCount != st.want {
				t.Errorf("TableCount = %d, %v, want %d", b.TableCount, err, st.want)
			}
			if o, _ := s.GetBucket(ctx, "other"); o.TableCount != 0 {
				t.Errorf("other bucket counts %d", o.TableCount)
			}
			for _, ns := range []string{"ns", "ns2"} {
				var want int
				s.db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM tables WHERE bucket = 'lake' AND namespace = ? AND state <> 'deregistered'`, ns).Scan(&want)
				got, err := s.CountTables(ctx, "lake", []string{ns}, ListTablesOptions{IncludeDeclared: true})
				if _, gone := s.GetNamespace(ctx, "lake", []string{ns}); gone != nil {
					continue
				}
				if err != nil || got != want {
					t.Errorf("CountTables(%s) = %d, %v, want %d", ns, got, err, want)
				}
			}
		})
	}
}
