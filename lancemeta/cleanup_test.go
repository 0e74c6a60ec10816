package lancemeta

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/floe/floe/lancemeta/lancepb"
	"github.com/floe/floe/warehouse"
)

// manifestBytes frames a manifest (and an index section before it) the
// way Lance writes a manifest file.
func manifestBytes(t *testing.T, m *lancepb.Manifest, indexUUIDs ...[]byte) []byte {
	t.Helper()
	var out []byte
	if len(indexUUIDs) > 0 {
		sec := &lancepb.IndexSection{}
		for _, u := range indexUUIDs {
			sec.Indices = append(sec.Indices, &lancepb.IndexMetadata{Uuid: &lancepb.UUID{Uuid: u}, Name: "idx"})
		}
		b, err := proto.Marshal(sec)
		if err != nil {
			t.Fatal(err)
		}
		pos := uint64(len(out))
		m.IndexSection = &pos
		out = binary.LittleEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	pos := uint64(len(out))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(b)))
	out = append(out, b...)
	out = binary.LittleEndian.AppendUint64(out, pos)
	out = binary.LittleEndian.AppendUint16(out, 0)
	out = binary.LittleEndian.AppendUint16(out, 2)
	return append(out, "LANC"...)
}

func ts(t time.Time) *lancepb.Timestamp {
	return &lancepb.Timestamp{Seconds: t.Unix(), Nanos: int32(t.Nanosecond())}
}

// TestPlanCleanup: three versions, the third after a compaction with an
// index; a cutoff between versions 2 and 3 removes the first two. Files
// only they reference go, files no manifest references go when older than
// seven days and stay when younger, the working set stays, and nothing
// newer than the oldest kept version is touched.
func TestPlanCleanup(t *testing.T) {
	dir := t.TempDir()
	wh, local, err := warehouse.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	now := time.Now()
	t1, t2, t3 := now.Add(-20*24*time.Hour), now.Add(-15*24*time.Hour), now.Add(-2*time.Hour)
	uKept := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	uOld := []byte{16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	table := filepath.Join(dir, "t.lance")
	files := map[string]struct {
		body []byte
		at   time.Time
	}{
		"_versions/1.manifest": {manifestBytes(t, &lancepb.Manifest{Version: 1, Timestamp: ts(t1), TransactionFile: "0-a.txn",
			Fragments: []*lancepb.DataFragment{{Id: 0, Files: []*lancepb.DataFile{{Path: "a.lance"}}}}}, uOld), t1},
		"_versions/2.manifest": {manifestBytes(t, &lancepb.Manifest{Version: 2, Timestamp: ts(t2), TransactionFile: "1-b.txn",
			Fragments: []*lancepb.DataFragment{{Id: 0, Files: []*lancepb.DataFile{{Path: "a.lance"}},
				DeletionFile: &lancepb.DeletionFile{FileType: lancepb.DeletionFile_ARROW_ARRAY, ReadVersion: 1, Id: 7}},
				{Id: 1, Files: []*lancepb.DataFile{{Path: "b.lance"}}}}}, uOld), t2},
		"_versions/3.manifest": {manifestBytes(t, &lancepb.Manifest{Version: 3, Timestamp: ts(t3), TransactionFile: "2-c.txn",
			Fragments: []*lancepb.DataFragment{{Id: 2, Files: []*lancepb.DataFile{{Path: "c.lance"}},
				DeletionFile: &lancepb.DeletionFile{FileType: lancepb.DeletionFile_BITMAP, ReadVersion: 3, Id: 9}}}}, uKept), t3},
		"data/a.lance":                                    {[]byte("aaaa"), t1},
		"data/b.lance":                                    {[]byte("bb"), t2},
		"data/c.lance":                                    {[]byte("cccccc"), t3.Add(-time.Minute)},
		"data/orphan-old.lance":                           {[]byte("o"), now.Add(-10 * 24 * time.Hour)},
		"data/orphan-young.lance":                         {[]byte("y"), now.Add(-3 * time.Hour)},
		"data/after-kept.lance":                           {[]byte("n"), now.Add(-time.Minute)},
		"_deletions/0-1-7.arrow":                          {[]byte("d"), t2},
		"_deletions/2-3-9.bin":                            {[]byte("D"), t3.Add(-time.Minute)},
		"_transactions/0-a.txn":                           {[]byte("x"), t1},
		"_transactions/1-b.txn":                           {[]byte("x"), t2},
		"_transactions/2-c.txn":                           {[]byte("x"), t3.Add(-time.Minute)},
		"_indices/01020304-0506-0708-090a-0b0c0d0e0f10/i": {[]byte("kept index"), t3.Add(-time.Minute)},
		"_indices/100f0e0d-0c0b-0a09-0807-060504030201/i": {[]byte("old index"), t2},
		"_versions/.tmp-abandoned":                        {[]byte("t"), now.Add(-9 * 24 * time.Hour)},
		".lance-reserved":                                 {[]byte("floe"), t1},
	}
	for rel, f := range files {
		p := filepath.Join(table, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.body, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, f.at, f.at); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := PlanCleanup(context.Background(), wh, "file://"+table, CleanupPolicy{Before: t3.Add(-time.Second), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range plan.Files {
		got = append(got, f.Kind+":"+f.Path)
	}
	want := []string{
		"index:_indices/100f0e0d-0c0b-0a09-0807-060504030201/i",
		"deletion:_deletions/0-1-7.arrow",
		"transaction:_transactions/0-a.txn",
		"transaction:_transactions/1-b.txn",
		"manifest:_versions/1.manifest",
		"manifest:_versions/2.manifest",
		"temporary:_versions/.tmp-abandoned",
		"data:data/a.lance",
		"data:data/b.lance",
		"data:data/orphan-old.lance",
	}
	if strings.Join(sorted(got), "\n") != strings.Join(sorted(want), "\n") {
		t.Fatalf("plan deletes\n%s\nwant\n%s", strings.Join(sorted(got), "\n"), strings.Join(sorted(want), "\n"))
	}
	if len(plan.Versions) != 2 || plan.Versions[0] != 1 || plan.Versions[1] != 2 || len(plan.Kept) != 1 || plan.Kept[0] != 3 {
		t.Fatalf("versions %v kept %v", plan.Versions, plan.Kept)
	}
	if plan.Unverified != 1 { // data/orphan-young.lance
		t.Fatalf("unverified kept = %d, want 1", plan.Unverified)
	}
	var bytes int64
	for _, f := range plan.Files {
		bytes += f.Size
	}
	if plan.Bytes != bytes || bytes == 0 {
		t.Fatalf("bytes %d, files sum to %d", plan.Bytes, bytes)
	}
	// A tag keeps version 1 and everything it references.
	plan, err = PlanCleanup(context.Background(), wh, "file://"+table, CleanupPolicy{Before: t3.Add(-time.Second), Now: now, Tagged: []uint64{1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plan.Files {
		if f.Path == "data/a.lance" || f.Path == "_versions/1.manifest" {
			t.Fatalf("a tagged version's file is planned for deletion: %s", f.Path)
		}
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
