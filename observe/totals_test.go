package observe

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist/persisttest"
)

// A bucket's totals are the sums of its tables' kept figures, each
// holding until that table's next point; another bucket's tables and a
// point without a figure leave them alone, and the answer never has more
// points than slots.
func TestBucketTotals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := persisttest.OpenAt(t, filepath.Join(dir, "c.db"), catalog.Migrations(), Migrations())
	cat, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	table := func(bucket, name string) string {
		t.Helper()
		if _, err := cat.GetBucket(ctx, bucket); err != nil {
			if _, err := cat.CreateBucket(ctx, catalog.CreateBucketInput{Name: bucket, Format: catalog.FormatLance}); err != nil {
				t.Fatal(err)
			}
			if _, err := cat.CreateNamespace(ctx, bucket, []string{"ns"}, nil); err != nil {
				t.Fatal(err)
			}
		}
		tbl, _, err := cat.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: bucket, Namespace: []string{"ns"}, Name: name}, Format: catalog.FormatLance})
		if err != nil {
			t.Fatal(err)
		}
		return tbl.ID
	}
	a, b, other := table("vec", "a"), table("vec", "b"), table("elsewhere", "c")
	s, err := New(db, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	put := func(id string, at time.Duration, attrs string) {
		t.Helper()
		if _, err := s.Put(obs(id, catalog.FormatLance, t0.Add(at), attrs)); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	empty, err := s.BucketTotals(ctx, "vec", 0, time.Now())
	if err != nil || len(empty.Points) != 0 || empty.Observations != 0 {
		t.Fatalf("no points yet: %+v, %v", empty, err)
	}
	put(a, 0, `{"rows":10,"bytes":100}`)
	put(b, 10*time.Minute, `{"rows":5}`) // no size: a's size holds alone
	put(other, 15*time.Minute, `{"rows":1000000,"bytes":1000000}`)
	put(a, 20*time.Minute, `{"rows":30,"bytes":300}`)
	put(b, 30*time.Minute, `{"rows":2,"bytes":50}`) // a table can shrink

	got, err := s.BucketTotals(ctx, "vec", 0, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var line []string
	for _, p := range got.Points {
		line = append(line, fmt.Sprintf("%s:%d/%d", p.At.Sub(t0), p.Rows, p.Bytes))
	}
	if want := "0s:10/100 10m0s:15/100 20m0s:35/300 30m0s:32/350"; strings.Join(line, " ") != want {
		t.Errorf("totals %v, want %s", line, want)
	}
	if got.Observations != 4 || got.Tables != 2 || !got.Points[0].HasRows || !got.Points[0].HasBytes {
		t.Errorf("counts %+v", got)
	}

	// Two slots of 25 minutes: the changes within each are summed, and
	// each point is the totals after its slot's last change.
	two, err := s.BucketTotals(ctx, "vec", 2, t0.Add(50*time.Minute))
	if err != nil || len(two.Points) != 2 {
		t.Fatalf("two slots: %+v, %v", two, err)
	}
	if p := two.Points[0]; !p.At.Equal(t0.Add(20*time.Minute)) || p.Rows != 35 || p.Bytes != 300 {
		t.Errorf("first slot %+v", p)
	}
	if p := two.Points[1]; p.Rows != 32 || p.Bytes != 350 {
		t.Errorf("second slot %+v", p)
	}
	if none, err := s.BucketTotals(ctx, "nope", 0, time.Now()); err != nil || len(none.Points) != 0 {
		t.Errorf("unknown bucket: %+v, %v", none, err)
	}
}

// A quick sum is made anew on every view; a slow one is reused for
// totalsReuse times what it took (at most TotalsMaxAge), so a big bucket's
// page does not read every kept point on every view.
func TestRecentBucketTotals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := persisttest.OpenAt(t, filepath.Join(dir, "c.db"), catalog.Migrations(), Migrations())
	cat, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	if _, err := cat.CreateBucket(ctx, catalog.CreateBucketInput{Name: "vec", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateNamespace(ctx, "vec", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl, _, err := cat.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "vec", Namespace: []string{"ns"}, Name: "a"}, Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(db, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	put := func(at time.Duration, attrs string) {
		t.Helper()
		if _, err := s.Put(obs(tbl.ID, catalog.FormatLance, t0.Add(at), attrs)); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	kept := func(now time.Time) int {
		t.Helper()
		tot, _, err := s.RecentBucketTotals(ctx, "vec", now)
		if err != nil {
			t.Fatal(err)
		}
		return tot.Observations
	}
	now := t0.Add(time.Hour)
	put(0, `{"rows":10}`)
	if n := kept(now); n != 1 {
		t.Fatalf("%d kept points, want 1", n)
	}
	put(time.Minute, `{"rows":20}`)
	if n := kept(now); n != 2 {
		t.Fatalf("a quick sum was reused: %d kept points, want 2", n)
	}
	// Pretend the last sum took a second: it is reused for 20 s.
	s.totals.mu.Lock()
	e := s.totals.buckets["vec"]
	s.totals.mu.Unlock()
	e.mu.Lock()
	e.took = time.Second
	e.mu.Unlock()
	put(2*time.Minute, `{"rows":30}`)
	if n := kept(now.Add(19 * time.Second)); n != 2 {
		t.Errorf("a slow sum 19 s old was summed again: %d kept points, want the reused 2", n)
	}
	if n := kept(now.Add(21 * time.Second)); n != 3 {
		t.Errorf("a slow sum 21 s old was reused: %d kept points, want 3", n)
	}
}
