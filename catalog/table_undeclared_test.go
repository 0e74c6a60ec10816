package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/warehouse"
)

// countingDisk is the local backend counting Exists calls: the storage
// check a declared Lance table costs.
type countingDisk struct {
	*warehouse.Local
	exists atomic.Int64
}

func (d *countingDisk) Exists(ctx context.Context, loc warehouse.Location) (bool, error) {
	d.exists.Add(1)
	return d.Local.Exists(ctx, loc)
}

// countingStore is a store on a local warehouse whose storage checks are
// counted.
func countingStore(t *testing.T, now ...func() time.Time) (*Store, *countingDisk) {
	t.Helper()
	dir := t.TempDir()
	wdir := filepath.Join(dir, "warehouse")
	if err := os.MkdirAll(wdir, 0o755); err != nil {
		t.Fatal(err)
	}
	local, err := warehouse.OpenLocal(wdir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	disk := &countingDisk{Local: local}
	opts := Options{Path: catalogPath(t, dir), Warehouse: local.Root().String(), Backend: disk, BcryptCost: bcrypt.MinCost}
	if len(now) > 0 {
		opts.Now = now[0]
	}
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	mustBucket(t, s, "any-b", FormatUnset)
	mustNamespace(t, s, "any-b", "ns")
	return s, disk
}

func writeVersions(t *testing.T, s *Store, name string) {
	t.Helper()
	tb, err := s.GetTable(context.Background(), ref("any-b", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(diskPath(tb.Location), "_versions"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// A listing without declared tables checks at most a page's worth of them
// on storage, however many the namespace holds, and paging through it
// still shows every table that has data, in order.
func TestListUndeclaredIsBoundedToThePage(t *testing.T) {
	ctx := context.Background()
	s, disk := countingStore(t)
	var want []string
	for i := range 200 {
		name := fmt.Sprintf("t%03d", i)
		switch {
		case i%50 == 7: // an Iceberg table now and then
			mustTable(t, s, ref("any-b", name), FormatIceberg)
			want = append(want, name)
		case i%40 == 3: // declared, and the SDK wrote data since
			mustTable(t, s, ref("any-b", name), FormatLance)
			writeVersions(t, s, name)
			want = append(want, name)
		default: // only declared
			mustTable(t, s, ref("any-b", name), FormatLance)
		}
	}
	for _, limit := range []int{1, 3, 10, 1000} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			var got []string
			after, calls := "", 0
			for {
				before := disk.exists.Load()
				names, next, err := s.ListTableNames(ctx, "any-b", []string{"ns"}, ListTablesOptions{
					ListOptions: ListOptions{After: after, Limit: limit}})
				if err != nil {
					t.Fatal(err)
				}
				if n := disk.exists.Load() - before; n > int64(limit) {
					t.Fatalf("one page of %d checked %d tables on storage", limit, n)
				}
				got = append(got, names...)
				if calls++; next == "" || calls > 400 {
					break
				}
				after = next
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("paged listing\n got %v\nwant %v", got, want)
			}
		})
	}
	t.Run("whole rows page the same", func(t *testing.T) {
		var got []string
		after := ""
		for range 400 {
			before := disk.exists.Load()
			items, next, err := s.ListTables(ctx, "any-b", []string{"ns"}, ListTablesOptions{ListOptions: ListOptions{After: after, Limit: 2}})
			if err != nil {
				t.Fatal(err)
			}
			if n := disk.exists.Load() - before; n > 2 {
				t.Fatalf("a page of 2 checked %d tables on storage", n)
			}
			for _, tb := range items {
				if tb.Format == FormatLance && tb.State != StateCreated {
					t.Errorf("%s listed as %q", tb.Name, tb.State)
				}
				got = append(got, tb.Name)
			}
			if after = next; next == "" {
				break
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("paged listing\n got %v\nwant %v", got, want)
		}
	})
	t.Run("a declared table that got data appears at once", func(t *testing.T) {
		writeVersions(t, s, "t000")
		names, _, err := s.ListTableNames(ctx, "any-b", []string{"ns"}, ListTablesOptions{ListOptions: ListOptions{Limit: 10}})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(names, ","); got != "t000,t003,t007" {
			t.Errorf("got %q, want t000,t003,t007 (the page ends at the tenth declared table checked, t011)", got)
		}
		if tb, _ := s.GetTable(ctx, ref("any-b", "t000")); tb.State != StateCreated {
			t.Errorf("state %q after the listing saw data, want created", tb.State)
		}
	})
	t.Run("Iceberg listings check nothing", func(t *testing.T) {
		before := disk.exists.Load()
		if _, _, err := s.ListTables(ctx, "any-b", []string{"ns"}, ListTablesOptions{Format: FormatIceberg}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.CountTables(ctx, "any-b", []string{"ns"}, ListTablesOptions{}); err != nil || n != len(want)+1 {
			t.Errorf("CountTables = %d, %v, want %d", n, err, len(want)+1)
		}
		if n := disk.exists.Load() - before; n != 0 {
			t.Errorf("%d storage checks", n)
		}
	})
}

// With the read cache on, a declared table is described from memory and a
// listing, with declared tables or without, checks each on storage at most
// once per declaredRecheck; data written in between shows once that has
// passed.
func TestDeclaredChecksAreCoarse(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, disk := countingStore(t, func() time.Time { return now })
	s.CacheReads(nil) // as floe serve does on SQLite
	for _, n := range []string{"a", "b", "c"} {
		mustTable(t, s, ref("any-b", n), FormatLance)
	}
	checks := func(what string, want int64, run func()) {
		t.Helper()
		before := disk.exists.Load()
		run()
		if n := disk.exists.Load() - before; n != want {
			t.Errorf("%s: %d storage checks, want %d", what, n, want)
		}
	}
	list := func() []Table {
		items, _, err := s.ListTables(ctx, "any-b", []string{"ns"}, ListTablesOptions{IncludeDeclared: true})
		if err != nil {
			t.Fatal(err)
		}
		return items
	}
	describe := func() Table {
		tb, err := s.GetTable(ctx, ref("any-b", "a"))
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	undeclared := func() []string {
		names, _, err := s.ListTableNames(ctx, "any-b", []string{"ns"}, ListTablesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	checks("first listing", 3, func() { list() })
	checks("listing again", 0, func() { list() })
	checks("listing without declared tables", 0, func() { undeclared() })
	checks("first describe", 1, func() { describe() })
	checks("describe again", 0, func() { describe() })
	if !s.cached(ref("any-b", "a")) {
		t.Error("a declared table is not cached")
	}

	writeVersions(t, s, "a")
	now = now.Add(declaredRecheck / 2)
	checks("within the window", 0, func() {
		if st := describe().State; st != StateDeclared {
			t.Errorf("state %q within the window", st)
		}
		list()
	})
	checks("listing without declared tables within the window", 0, func() {
		if got := undeclared(); len(got) != 0 {
			t.Errorf("listed %v within the window", got)
		}
	})
	now = now.Add(declaredRecheck)
	checks("listing after the window", 3, func() {
		if items := list(); items[0].State != StateCreated {
			t.Errorf("a is %q in the listing once the window passed, want created", items[0].State)
		}
	})
	checks("describe after the listing recorded the data", 0, func() {
		if st := describe().State; st != StateCreated {
			t.Errorf("a described as %q, want created", st)
		}
	})
}
