package lancemeta

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/floe/floe/lancemeta/lancepb"
)

// testdata/indexed.manifest is version 9 of a table LanceDB 0.39 wrote:
// 600 rows, 100 more, a BTREE, BITMAP, LABEL_LIST, FTS and IVF_PQ index
// (one each), 50 more rows, then a delete of 10. The figures below are what
// LanceDB 0.39's own listIndices(), indexStats(), countRows() and stats()
// answered for that table.
func indexedFixture(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/indexed.manifest")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestIndicesAsLanceDBListsThem(t *testing.T) {
	m, err := Decode(indexedFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		name, uuid, column, typ, dist string
		size                          uint64
		version                       int32
		created                       string
	}
	wants := []want{
		{"id_idx", "d4dca8c7-e225-442b-b98c-7bc937bce2f4", "id", "BTREE", "", 6974, 0, "2026-12-01T22:45:09.956Z"},
		{"name_idx", "7e5ff1f6-141c-45f3-a3eb-5ee3c3f466ce", "name", "BITMAP", "", 2480, 0, "2026-12-01T22:45:09.959Z"},
		{"tags_idx", "24779808-b628-44f9-a88c-5535e192584c", "tags", "LABEL_LIST", "", 2335, 1, "2026-12-01T22:45:09.96Z"},
		{"text_idx", "e86704ed-3e20-448e-8ca0-ed51898af35d", "text", "FTS", "", 36742, 2, "2026-12-01T22:45:09.965Z"},
		{"vec_idx", "1f84f10a-b0d9-45f2-adbb-4862eee2e9a6", "vec", "IVF_PQ", "l2", 15172, 1, "2026-12-01T22:45:09.978Z"},
	}
	if len(m.Indices) != len(wants) {
		t.Fatalf("%d indices, want %d: %+v", len(m.Indices), len(wants), m.Indices)
	}
	for i, w := range wants {
		ix := m.Indices[i]
		created := ""
		if ix.CreatedAt != nil {
			b, _ := json.Marshal(ix.CreatedAt)
			created = string(b[1 : len(b)-1])
		}
		if ix.Name != w.name || ix.UUID != w.uuid || len(ix.Columns) != 1 || ix.Columns[0] != w.column ||
			ix.Type != w.typ || ix.DistanceType != w.dist || ix.SizeBytes == nil || *ix.SizeBytes != w.size ||
			ix.Version != w.version || ix.Segments != 1 || created != w.created {
			t.Errorf("index %d = %+v (created %s), want %+v", i, ix, created, w)
		}
		// 700 rows existed when the indices were built; 10 of them were
		// deleted since, and 50 were added after.
		if ix.IndexedRows != 690 || ix.UnindexedRows != 50 {
			t.Errorf("%s: indexed %d, unindexed %d; LanceDB says 690 and 50", ix.Name, ix.IndexedRows, ix.UnindexedRows)
		}
	}
	if got := string(m.Indices[4].Details); got != `{"compression":{"num_bits":8,"num_sub_vectors":2,"type":"pq"},"metric_type":"L2"}` {
		t.Errorf("vector details = %s", got)
	}
}

func TestStatsAsLanceDBComputesThem(t *testing.T) {
	m, err := Decode(indexedFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	got := m.Stats()
	want := Stats{TotalBytes: 111274, Rows: 740, Indices: 5, Fragments: FragmentStats{
		Count: 3, Small: 3, Min: 50, Max: 600, Mean: 250, P25: 50, P50: 100, P75: 600, P99: 600,
	}}
	if got != want {
		t.Fatalf("stats\n got %+v\nwant %+v (LanceDB 0.39's stats() of the same table)", got, want)
	}
	if (Manifest{}).Stats() != (Stats{}) {
		t.Fatalf("an empty table's stats = %+v", (Manifest{}).Stats())
	}
}

// TestIndexTypes: the type URL and vector details name the type as
// LanceDB's indexStats() does (its answers for each kind, built with
// LanceDB 0.39, are the expectations); types LanceDB does not list are left
// out.
func TestIndexTypes(t *testing.T) {
	vec := func(d *lancepb.VectorIndexDetails) *anypb.Any {
		b, err := proto.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return &anypb.Any{TypeUrl: "/lance.index.pb.VectorIndexDetails", Value: b}
	}
	hnsw := &lancepb.VectorIndexDetails_HNSW{MaxConnections: 20, ConstructionEf: 300, MaxLevel: 7}
	cosine := lancepb.VectorIndexDetails_COSINE
	cases := []struct {
		details  *anypb.Any
		typ      string
		distance string
		ok       bool
	}{
		{&anypb.Any{TypeUrl: "/lance.table.BTreeIndexDetails"}, "BTREE", "", true},
		{&anypb.Any{TypeUrl: "/lance.table.BitmapIndexDetails"}, "BITMAP", "", true},
		{&anypb.Any{TypeUrl: "/lance.table.LabelListIndexDetails"}, "LABEL_LIST", "", true},
		{&anypb.Any{TypeUrl: "/lance.table.InvertedIndexDetails"}, "FTS", "", true},
		{vec(&lancepb.VectorIndexDetails{MetricType: cosine, Flat: &lancepb.VectorIndexDetails_Flat{}}), "IVF_FLAT", "cosine", true},
		{vec(&lancepb.VectorIndexDetails{MetricType: lancepb.VectorIndexDetails_DOT, Pq: &lancepb.VectorIndexDetails_PQ{NumBits: 8, NumSubVectors: 4}}), "IVF_PQ", "dot", true},
		{vec(&lancepb.VectorIndexDetails{Rq: &lancepb.VectorIndexDetails_RQ{NumBits: 1}}), "IVF_RQ", "l2", true},
		{vec(&lancepb.VectorIndexDetails{Sq: &lancepb.VectorIndexDetails_SQ{NumBits: 8}}), "IVF_SQ", "l2", true},
		{vec(&lancepb.VectorIndexDetails{MetricType: cosine, Hnsw: hnsw, Sq: &lancepb.VectorIndexDetails_SQ{NumBits: 8}}), "IVF_HNSW_SQ", "cosine", true},
		{vec(&lancepb.VectorIndexDetails{Hnsw: hnsw, Pq: &lancepb.VectorIndexDetails_PQ{NumBits: 8, NumSubVectors: 4}}), "IVF_HNSW_PQ", "l2", true},
		{vec(&lancepb.VectorIndexDetails{}), "", "", false}, // too old to say how it was built
		{&anypb.Any{TypeUrl: "/lance.table.ZoneMapIndexDetails"}, "", "", false},
		{&anypb.Any{TypeUrl: "/lance.table.FragReuseIndexDetails"}, "", "", false},
		{&anypb.Any{TypeUrl: "/lance.index.pb.VectorIndexDetails", Value: []byte{0xff}}, "", "", false},
		{nil, "", "", false},
	}
	for _, tc := range cases {
		typ, dist, _, ok := indexType(tc.details)
		if typ != tc.typ || dist != tc.distance || ok != tc.ok {
			t.Errorf("%v: got %q %q %v, want %q %q %v", tc.details, typ, dist, ok, tc.typ, tc.distance, tc.ok)
		}
	}
}

// TestIndexSegments: segments of one name are one index; rows count once
// per fragment even when two segments cover it; a fragment no segment
// covers is unindexed; a segment without recorded files has no size.
func TestIndexSegments(t *testing.T) {
	fields := []*lancepb.Field{
		{Id: 0, ParentId: -1, Name: "id", LogicalType: "int64"},
		{Id: 1, ParentId: -1, Name: "meta.data", LogicalType: "struct"},
		{Id: 2, ParentId: 1, Name: "k`ey", LogicalType: "string"},
	}
	m := Manifest{FragmentList: []Fragment{{ID: 0, PhysicalRows: 10}, {ID: 1, PhysicalRows: 20, DeletedRows: 5}, {ID: 7, PhysicalRows: 100}}}
	m.PhysicalRow, m.DeletedRows = 130, 5
	btree := &anypb.Any{TypeUrl: "/lance.table.BTreeIndexDetails"}
	sec := &lancepb.IndexSection{Indices: []*lancepb.IndexMetadata{
		{Name: "k", Fields: []int32{2}, IndexDetails: btree, FragmentBitmap: arrayBitmap(0, 1), Files: []*lancepb.IndexFile{{SizeBytes: 5}}},
		{Name: "zm", Fields: []int32{0}, IndexDetails: &anypb.Any{TypeUrl: "/lance.table.ZoneMapIndexDetails"}, FragmentBitmap: arrayBitmap(0), Files: []*lancepb.IndexFile{{SizeBytes: 1000}}},
		{Name: "k", Fields: []int32{2}, IndexDetails: btree, FragmentBitmap: arrayBitmap(1), Files: nil},
	}}
	if err := m.readIndices(sec, fields); err != nil {
		t.Fatal(err)
	}
	if len(m.Indices) != 1 {
		t.Fatalf("indices = %+v", m.Indices)
	}
	ix := m.Indices[0]
	if ix.Columns[0] != "`meta.data`.`k``ey`" || ix.Segments != 2 || ix.IndexedRows != 25 || ix.UnindexedRows != 100 || ix.SizeBytes != nil {
		t.Fatalf("index = %+v", ix)
	}
	if m.IndexBytes != 1005 {
		t.Fatalf("index bytes = %d, want every segment's files (1005)", m.IndexBytes)
	}
	bad := &lancepb.IndexSection{Indices: []*lancepb.IndexMetadata{{Name: "x", Fields: []int32{9}, IndexDetails: btree, FragmentBitmap: arrayBitmap(0)}}}
	if err := (&Manifest{}).readIndices(bad, fields); err == nil {
		t.Fatal("an index on a field the schema lacks was accepted")
	}
}

// arrayBitmap writes a portable Roaring bitmap of small ids (one array
// container, no runs), the shape Lance writes for a few fragments.
func arrayBitmap(ids ...uint16) []byte {
	b := binary.LittleEndian.AppendUint32(nil, cookieNoRuns)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(ids)-1))
	b = binary.LittleEndian.AppendUint32(b, 16)
	for _, id := range ids {
		b = binary.LittleEndian.AppendUint16(b, id)
	}
	return b
}

func TestFragmentSet(t *testing.T) {
	// Lance's own serialization of {0, 1}, from the fixture.
	lance := []byte(":0\x00\x00\x01\x00\x00\x00\x00\x00\x01\x00\x10\x00\x00\x00\x00\x00\x01\x00")
	s, err := parseFragmentSet(lance)
	if err != nil || !s.contains(0) || !s.contains(1) || s.contains(2) || s.contains(65536) {
		t.Fatalf("Lance's {0,1}: %+v %v", s, err)
	}

	// With runs: containers for key 0 (run 10..19), key 1 (array {5}), key 3
	// (bitmap, 5000 ids: every even number below 10000) and key 4 (run
	// 0..0): four containers, so the offset header is there.
	b := binary.LittleEndian.AppendUint32(nil, cookieWithRuns|uint32(4-1)<<16)
	b = append(b, 0b1001) // containers 0 and 3 are runs
	for _, kc := range [][2]uint16{{0, 9}, {1, 0}, {3, 4999}, {4, 0}} {
		b = binary.LittleEndian.AppendUint16(b, kc[0])
		b = binary.LittleEndian.AppendUint16(b, kc[1])
	}
	b = append(b, make([]byte, 16)...) // offsets, unread
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, 10)
	b = binary.LittleEndian.AppendUint16(b, 9)
	b = binary.LittleEndian.AppendUint16(b, 5)
	bits := make([]byte, 8192)
	for v := 0; v < 10000; v += 2 {
		bits[v/8] |= 1 << (v % 8)
	}
	b = append(b, bits...)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint16(b, 0)
	s, err = parseFragmentSet(b)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[uint32]bool{9: false, 10: true, 19: true, 20: false, 65536 + 5: true, 65536 + 6: false,
		3<<16 + 9998: true, 3<<16 + 9999: false, 3<<16 + 10000: false, 4 << 16: true, 4<<16 + 1: false, 2 << 16: false} {
		if s.contains(id) != want {
			t.Errorf("contains(%d) = %v, want %v", id, !want, want)
		}
	}

	for name, bad := range map[string][]byte{
		"empty":              nil,
		"unknown cookie":     {1, 2, 3, 4},
		"huge count":         binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, cookieNoRuns), 1<<30),
		"array cut short":    lance[:len(lance)-1],
		"keys out of order":  append(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, cookieNoRuns), 2), 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
		"bitmap cut short":   b[:len(b)-8000],
		"run flags too long": binary.LittleEndian.AppendUint32(nil, cookieWithRuns|0xffff<<16),
	} {
		if _, err := parseFragmentSet(bad); !errors.Is(err, errBitmap) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// FuzzFragmentSet: any bytes give a set or errBitmap, never a panic; every
// id asked of a set answers.
func FuzzFragmentSet(f *testing.F) {
	f.Add(arrayBitmap(0, 1, 2))
	f.Add([]byte(":0\x00\x00\x01\x00\x00\x00\x00\x00\x01\x00\x10\x00\x00\x00\x00\x00\x01\x00"))
	f.Add(binary.LittleEndian.AppendUint32(nil, cookieWithRuns))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseFragmentSet(b)
		if err != nil {
			if !errors.Is(err, errBitmap) {
				t.Fatalf("err %v is not errBitmap", err)
			}
			return
		}
		for _, id := range []uint32{0, 1, 65535, 65536, 1 << 31} {
			s.contains(id)
		}
	})
}
