package health

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func i64(n int64) *int64 { return &n }

// history makes n versions, the oldest ageOldest ago and the newest now.
func history(n int, ageOldest time.Duration) []observe.HistoryEntry {
	h := make([]observe.HistoryEntry, n)
	for i := range n {
		var age time.Duration
		if n > 1 {
			age = ageOldest - ageOldest*time.Duration(i)/time.Duration(n-1)
		}
		h[i] = observe.HistoryEntry{Version: int64(i + 1), Timestamp: now.Add(-age)}
	}
	return h
}

func TestLanceRules(t *testing.T) {
	th := DefaultThresholds() // min 8 fragments, 10,000 unindexed, keep 10, 168 h
	week := 168 * time.Hour
	cases := []struct {
		name   string
		a      observe.Attributes
		state  State
		rule   string // the one rule expected to fire ("" = none)
		job    string
		delete bool
	}{
		{"nothing to judge", observe.Attributes{Rows: i64(5)}, Unknown, "", "", false},
		{"one fragment", observe.Attributes{Fragments: i64(1), SmallFragments: i64(1), Versions: i64(1), History: history(1, 0)}, Healthy, "", "", false},
		{"small fragments under half", observe.Attributes{SmallFragments: i64(3)}, Healthy, "", "", false},
		{"small fragments at half", observe.Attributes{SmallFragments: i64(4)}, Attention, "lance.small_fragments", JobLanceCompact, false},
		{"small fragments at threshold", observe.Attributes{SmallFragments: i64(8)}, NeedsMaintenance, "lance.small_fragments", JobLanceCompact, false},
		{"a few unindexed rows", observe.Attributes{Fragments: i64(1), Indices: []observe.Index{{Name: "v_idx", IndexedRows: 100, UnindexedRows: 5}}}, Attention, "lance.unindexed_rows", JobLanceOptimize, false},
		{"unindexed at threshold is not yet due", observe.Attributes{Fragments: i64(1), Indices: []observe.Index{{Name: "v_idx", UnindexedRows: 10_000}}}, Attention, "lance.unindexed_rows", JobLanceOptimize, false},
		{"unindexed past threshold", observe.Attributes{Fragments: i64(1), Indices: []observe.Index{{Name: "a"}, {Name: "v_idx", UnindexedRows: 10_001}}}, NeedsMaintenance, "lance.unindexed_rows", JobLanceOptimize, false},
		{"fully indexed", observe.Attributes{Fragments: i64(1), Indices: []observe.Index{{Name: "v_idx", IndexedRows: 10}}}, Healthy, "", "", false},
		{"many young versions", observe.Attributes{Versions: i64(40), History: history(40, time.Hour)}, Healthy, "", "", false},
		{"a few old versions beyond keep", observe.Attributes{Versions: i64(15), History: history(15, 2*week)}, Attention, "lance.reclaimable_versions", JobLanceCleanup, true},
		{"old versions past keep", observe.Attributes{Versions: i64(30), History: history(30, 30*week)}, NeedsMaintenance, "lance.reclaimable_versions", JobLanceCleanup, true},
		{"old versions all within keep", observe.Attributes{Versions: i64(10), History: history(10, 10*week)}, Healthy, "", "", false},
		{"versions before the history count when its first is old", observe.Attributes{Versions: i64(200), History: history(50, 4*week)}, NeedsMaintenance, "lance.reclaimable_versions", JobLanceCleanup, true},
		{"versions without history are not judged", observe.Attributes{Fragments: i64(1), Versions: i64(200)}, Healthy, "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Lance(c.a, now, now, th)
			if r.State != c.state {
				t.Fatalf("state %v, want %v (%s)", r.State, c.state, r.Summary)
			}
			if c.rule == "" {
				if len(r.Reasons) != 0 {
					t.Fatalf("reasons %+v, want none", r.Reasons)
				}
				return
			}
			if len(r.Reasons) != 1 || r.Reasons[0].Rule != c.rule {
				t.Fatalf("reasons %+v, want one %s", r.Reasons, c.rule)
			}
			x := r.Reasons[0]
			if x.Job != c.job || x.DeletesData != c.delete {
				t.Errorf("job %q deletes %v, want %q %v", x.Job, x.DeletesData, c.job, c.delete)
			}
			if x.Figure <= 0 || !strings.Contains(r.Summary, "threshold") {
				t.Errorf("reason %+v / summary %q lacks its figure or threshold", x, r.Summary)
			}
		})
	}
}

func TestLanceCleanupParamsFollowSettings(t *testing.T) {
	th := FromSettings(func(jt string) map[string]string {
		if jt == JobLanceCleanup {
			return map[string]string{"retain_hours": "1", "min_versions_to_keep": "2"}
		}
		return nil
	})
	r := Lance(observe.Attributes{Versions: i64(6), History: history(6, 5*time.Hour)}, now, now, th)
	if r.State != NeedsMaintenance || len(r.Reasons) != 1 {
		t.Fatalf("%v %+v", r.State, r.Reasons)
	}
	p := r.Reasons[0].Params
	if p["older_than"] != "1h" || p["retain_versions"] != "2" {
		t.Errorf("params %v", p)
	}
	// 6 versions over 5 h: 5 older than 1 h, keep 2 newest → 4 reclaimable.
	if r.Reasons[0].Figure != 4 {
		t.Errorf("reclaimable %d, want 4", r.Reasons[0].Figure)
	}
}

func TestIcebergRules(t *testing.T) {
	th := DefaultThresholds() // 5 small files per partition, 1 orphan, 10 manifests
	cases := []struct {
		name   string
		f      IcebergFigures
		state  State
		rule   string
		job    string
		delete bool
	}{
		{"clean", IcebergFigures{DataFiles: 3, DataManifests: 1, Snapshots: 2}, Healthy, "", "", false},
		{"small files in one partition", IcebergFigures{SmallFiles: 6, MaxSmallPerPartition: 6}, NeedsMaintenance, "iceberg.small_files", JobIcebergCompact, false},
		{"small files spread thin", IcebergFigures{SmallFiles: 8, MaxSmallPerPartition: 2}, Attention, "iceberg.small_files", JobIcebergCompact, false},
		{"small files with delete files: no job", IcebergFigures{SmallFiles: 6, MaxSmallPerPartition: 6, DeleteFiles: 1}, Attention, "iceberg.small_files", "", false},
		{"snapshots past retention", IcebergFigures{Snapshots: 9, ExpirableSnapshots: 4}, NeedsMaintenance, "iceberg.expirable_snapshots", JobIcebergExpire, true},
		{"orphans", IcebergFigures{OrphanFiles: 3, OrphanBytes: 3 << 20}, NeedsMaintenance, "iceberg.orphan_files", JobIcebergOrphans, true},
		{"manifests at half", IcebergFigures{DataManifests: 5}, Attention, "iceberg.manifests", JobIcebergManifests, false},
		{"manifests at threshold", IcebergFigures{DataManifests: 10}, NeedsMaintenance, "iceberg.manifests", JobIcebergManifests, false},
		{"lance adapter", IcebergFigures{LanceAdapter: true, SmallFiles: 100, MaxSmallPerPartition: 100}, Unknown, "", "", false},
		{"unreadable: the worker skips it", IcebergFigures{Unreadable: "min snapshots to keep must be greater than 0"}, Unknown, "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Iceberg(c.f, now, th)
			if r.State != c.state {
				t.Fatalf("state %v, want %v (%s)", r.State, c.state, r.Summary)
			}
			if c.rule == "" {
				if len(r.Reasons) != 0 {
					t.Fatalf("reasons %+v, want none", r.Reasons)
				}
				return
			}
			if len(r.Reasons) != 1 || r.Reasons[0].Rule != c.rule {
				t.Fatalf("reasons %+v, want one %s", r.Reasons, c.rule)
			}
			if x := r.Reasons[0]; x.Job != c.job || x.DeletesData != c.delete {
				t.Errorf("job %q deletes %v, want %q %v", x.Job, x.DeletesData, c.job, c.delete)
			}
		})
	}
}

// The keys the Iceberg worker writes (workers/iceberg/observe.go) must be
// the keys read here; this blob is what its Figures marshal to.
func TestParseIcebergWorkerKeys(t *testing.T) {
	blob := `{"rows":20,"data_files":7,"data_bytes":700,"small_files":6,"small_bytes":600,"small_file_threshold_bytes":402653184,
		"delete_files":0,"max_small_files_per_partition":6,"snapshots":4,"oldest_snapshot_age_seconds":10,"expirable_snapshots":1,
		"manifests":12,"data_manifests":11,"orphan_candidates":2,"orphan_candidate_bytes":99,"current_snapshot_id":42,"format_version":2}`
	f, err := ParseIceberg([]byte(blob))
	if err != nil {
		t.Fatal(err)
	}
	want := IcebergFigures{Rows: 20, DataFiles: 7, DataBytes: 700, SmallFiles: 6, SmallBytes: 600, MaxSmallPerPartition: 6, Snapshots: 4,
		ExpirableSnapshots: 1, Manifests: 12, DataManifests: 11, OrphanFiles: 2, OrphanBytes: 99, CurrentSnapshotID: 42}
	if f != want {
		t.Fatalf("got %+v\nwant %+v", f, want)
	}
	if r := Iceberg(f, now, DefaultThresholds()); len(r.Reasons) != 4 || r.State != NeedsMaintenance {
		t.Errorf("%v %+v", r.State, r.Reasons)
	}
}

func TestFromSettings(t *testing.T) {
	cases := []struct {
		name string
		vals map[string]map[string]string
		want func(*Thresholds)
	}{
		{"none", nil, func(*Thresholds) {}},
		{"compact", map[string]map[string]string{JobLanceCompact: {"min_fragments": "20"}}, func(t *Thresholds) { t.MinFragments = 20 }},
		{"garbage keeps default", map[string]map[string]string{JobLanceCompact: {"min_fragments": "many"}}, func(*Thresholds) {}},
		{"negative keeps default", map[string]map[string]string{JobIcebergManifests: {"min_manifests": "-1"}}, func(*Thresholds) {}},
		{"retention", map[string]map[string]string{JobLanceCleanup: {"retain_hours": "0"}}, func(t *Thresholds) { t.Retain = 0 }},
		{"iceberg", map[string]map[string]string{JobIcebergCompact: {"min_input_files": "9"}, JobIcebergOrphans: {"min_orphans": "3"}},
			func(t *Thresholds) { t.MinSmallFiles, t.MinOrphans = 9, 3 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := DefaultThresholds()
			c.want(&want)
			got := FromSettings(func(jt string) map[string]string { return c.vals[jt] })
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

// fakeObs is an in-memory Observations.
type fakeObs struct {
	m       map[string]observe.Observation
	changes uint64
}

func (f *fakeObs) put(id string, format catalog.Format, attrs any) {
	b, _ := json.Marshal(attrs)
	f.m[id] = observe.Observation{ObjectID: id, Format: format, ObservedAt: now.Add(time.Duration(f.changes)), Attributes: b}
	f.changes++
}
func (f *fakeObs) ObservedAt(id string, _ catalog.Format) (time.Time, bool) {
	o, ok := f.m[id]
	return o.ObservedAt, ok
}
func (f *fakeObs) Get(id string, _ catalog.Format) (observe.Observation, bool) {
	o, ok := f.m[id]
	return o, ok
}
func (f *fakeObs) Stats(id string, _ catalog.Format) (observe.Stats, bool) {
	o, ok := f.m[id]
	if !ok {
		return observe.Stats{}, false
	}
	var a observe.Attributes
	_ = json.Unmarshal(o.Attributes, &a)
	return observe.Stats{Attributes: a, ObservedAt: o.ObservedAt}, true
}
func (f *fakeObs) Changes() uint64 { return f.changes }

type fakeTables struct {
	gen   int64
	bgen  map[string]int64 // added to gen for one bucket
	keys  []catalog.TableKey
	read  int
	reads []string // the bucket of each TableKeys call ("" every bucket)
}

func (f *fakeTables) TableGeneration(context.Context) (int64, error) { return f.gen, nil }
func (f *fakeTables) BucketTableGenerations(context.Context) (map[string]int64, error) {
	gens := map[string]int64{}
	for _, k := range f.keys {
		gens[k.Bucket] = f.gen + f.bgen[k.Bucket]
	}
	return gens, nil
}
func (f *fakeTables) TableKeys(_ context.Context, bucket string, _ []string) ([]catalog.TableKey, error) {
	f.read++
	f.reads = append(f.reads, bucket)
	var out []catalog.TableKey
	for _, k := range f.keys {
		if bucket == "" || k.Bucket == bucket {
			out = append(out, k)
		}
	}
	return out, nil
}

func TestServiceSummariesAndFilter(t *testing.T) {
	obs := &fakeObs{m: map[string]observe.Observation{}}
	tabs := &fakeTables{gen: 1, keys: []catalog.TableKey{
		{ID: "a", Bucket: "b1", Name: "a", Format: catalog.FormatLance},
		{ID: "b", Bucket: "b1", Name: "b", Format: catalog.FormatLance},
		{ID: "c", Bucket: "b1", Name: "c", Format: catalog.FormatLance},
		{ID: "i", Bucket: "b2", Name: "i", Format: catalog.FormatIceberg},
	}}
	obs.put("a", catalog.FormatLance, map[string]any{"rows": 10, "bytes": 100, "fragments": 12, "small_fragments": 12, "version": 13})
	obs.put("b", catalog.FormatLance, map[string]any{"rows": 5, "bytes": 50, "fragments": 1, "small_fragments": 1})
	obs.put("i", catalog.FormatIceberg, map[string]any{"rows": 7, "data_bytes": 70, "data_manifests": 5, "current_snapshot_id": 99})
	clock := now
	s := New(Config{Observations: obs, Tables: tabs, Now: func() time.Time { return clock }})

	if ov := s.Table("c", catalog.FormatLance, time.Time{}); ov.State != Unknown || ov.Summary != "unknown, not observed yet" {
		t.Errorf("unobserved table: %+v", ov.Report)
	}
	if ov := s.Table("a", catalog.FormatLance, time.Time{}); ov.State != NeedsMaintenance || ov.Version != "13" || ov.Rows != 10 {
		t.Errorf("a: %+v", ov)
	}
	if ov := s.Table("i", catalog.FormatIceberg, time.Time{}); ov.State != Attention || ov.Version != "99" || ov.Bytes != 70 {
		t.Errorf("i: %+v", ov)
	}

	sum, err := s.Buckets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]BucketSummary{
		"b1": {Tables: 3, Observed: 2, Rows: 15, Bytes: 150, NeedsMaintenance: 1},
		"b2": {Tables: 1, Observed: 1, Rows: 7, Bytes: 70, Attention: 1},
	}
	for b, w := range want {
		if sum[b] != w {
			t.Errorf("%s: %+v, want %+v", b, sum[b], w)
		}
	}
	// The first pass read the tables bucket by bucket, never all at once.
	if !slices.Equal(tabs.reads, []string{"b1", "b2"}) {
		t.Errorf("the first pass read the tables of %q, want each bucket's in turn", tabs.reads)
	}
	pass := tabs.read
	if _, _ = s.Buckets(context.Background()); tabs.read != pass {
		t.Errorf("an unchanged catalog was read %d more times", tabs.read-pass)
	}
	// A new observation: within summaryMinInterval the sums may trail it…
	obs.put("c", catalog.FormatLance, map[string]any{"rows": 1, "fragments": 9, "small_fragments": 9})
	if _, _ = s.Buckets(context.Background()); tabs.read != pass {
		t.Errorf("recomputed at once on an observation")
	}
	// …and after it they follow.
	clock = clock.Add(summaryMinInterval)
	sum, _ = s.Buckets(context.Background())
	if sum["b1"].NeedsMaintenance != 2 {
		t.Errorf("after the interval: %+v", sum["b1"])
	}
	// A catalog change recomputes at once.
	tabs.gen++
	tabs.keys = tabs.keys[1:]
	sum, _ = s.Buckets(context.Background())
	if sum["b1"].Tables != 2 {
		t.Errorf("after a drop: %+v", sum["b1"])
	}
	// A change in one bucket rereads that bucket's tables, not the catalog's.
	tabs.reads = nil
	tabs.bgen = map[string]int64{"b2": 1}
	tabs.keys = append(tabs.keys, catalog.TableKey{ID: "j", Bucket: "b2", Name: "j", Format: catalog.FormatIceberg})
	sum, _ = s.Buckets(context.Background())
	if sum["b2"].Tables != 2 || sum["b1"].Tables != 2 || !slices.Equal(tabs.reads, []string{"b2"}) {
		t.Errorf("after a create in b2: b1 %+v, b2 %+v; tables read for %q, want only b2's", sum["b1"], sum["b2"], tabs.reads)
	}

	obs.put("b", catalog.FormatLance, map[string]any{"fragments": 5, "small_fragments": 5})
	cases := []struct {
		contains, after string
		limit           int
		want            string
		total           int
	}{
		{"", "", 10, "b,c", 2},
		{"", "", 1, "b", 2},
		{"", "b", 10, "c", 2},
		{"c", "", 10, "c", 1},
		{"zzz", "", 10, "", 0},
	}
	for _, c := range cases {
		page, total, err := s.NeedingAttention(context.Background(), "b1", []string{"ns"}, c.contains, c.after, c.limit)
		var names []string
		for _, k := range page {
			names = append(names, k.Name)
		}
		if err != nil || total != c.total || strings.Join(names, ",") != c.want {
			t.Errorf("%+v: %v %d %v", c, names, total, err)
		}
	}
	// The list is cached: a table that turns healthy leaves it once the
	// interval passed (observations) or at once (a catalog change).
	obs.put("b", catalog.FormatLance, map[string]any{"fragments": 1, "small_fragments": 1})
	if _, total, _ := s.NeedingAttention(context.Background(), "b1", []string{"ns"}, "", "", 10); total != 2 {
		t.Errorf("within the interval: %d, want the cached 2", total)
	}
	clock = clock.Add(summaryMinInterval)
	if _, total, _ := s.NeedingAttention(context.Background(), "b1", []string{"ns"}, "", "", 10); total != 1 {
		t.Errorf("after the interval: %d, want 1", total)
	}
}

func TestSentence(t *testing.T) {
	r := Reason{What: "orphan files", Figure: 1234, Threshold: 1, Unit: "files", Job: JobIcebergOrphans, Note: "5.0 MiB no snapshot references"}
	want := "orphan files: 1,234 files, threshold 1 files. 5.0 MiB no snapshot references (iceberg_remove_orphans clears it)"
	if got := r.Sentence(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := Bytes(5 << 20); got != "5.0 MiB" {
		t.Errorf("Bytes: %q", got)
	}
}
