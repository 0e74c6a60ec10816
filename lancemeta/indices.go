package lancemeta

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/floe/floe/lancemeta/lancepb"
)

// Index is one index of a dataset version as LanceDB 0.39's listIndices()
// and indexStats() describe it: its segments (deltas) share the name and
// are summed.
type Index struct {
	Name string
	// UUID is the first segment's, in Lance's hyphenated form.
	UUID string
	// Columns are the indexed fields' paths: names from the top level
	// down, joined by ".", a name holding "." or "`" in backticks (a "`"
	// in it doubled), as Lance writes field paths.
	Columns []string
	// Type is the index type as LanceDB names it in indexStats() and the
	// Lance Namespace spec: BTREE, BITMAP, LABEL_LIST, FTS, IVF_FLAT,
	// IVF_SQ, IVF_PQ, IVF_RQ, IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ.
	Type    string
	TypeURL string
	// DistanceType is a vector index's metric (l2, cosine, dot, hamming);
	// "" for the others.
	DistanceType string
	// IndexedRows counts the live rows of the fragments some segment
	// covers; UnindexedRows the table's other live rows.
	IndexedRows   uint64
	UnindexedRows uint64
	// SizeBytes sums the segments' recorded file sizes; nil when a segment
	// records none (written before Lance recorded them).
	SizeBytes *uint64
	Segments  int
	// CreatedAt is the earliest segment's creation time; nil when no
	// segment records one.
	CreatedAt *time.Time
	// Version is the first segment's on-disk index format version.
	Version int32
	// Details is a vector index's parameters as JSON (metric_type,
	// compression, hnsw, in the shape LanceDB's indexDetails has); nil for
	// other types.
	Details json.RawMessage
}

// scalarTypes maps the type URL's message name of each scalar index type
// LanceDB 0.39 recognises to its name.
var scalarTypes = map[string]string{
	"BTreeIndexDetails":     "BTREE",
	"BitmapIndexDetails":    "BITMAP",
	"LabelListIndexDetails": "LABEL_LIST",
	"InvertedIndexDetails":  "FTS",
}

const vectorDetails = "VectorIndexDetails"

// maxIndexSegments bounds the segments read from one manifest: a segment
// is a delta of one index, and optimize merges them; thousands means a
// damaged section, not a real dataset.
const maxIndexSegments = 1 << 16

// readIndices groups the section's segments by name into m.Indices.
// Segments of types LanceDB 0.39 does not list (Lance's own
// fragment-reuse and MemWAL indices, zone maps, n-gram and bloom filter
// indices, types newer than this reader) are left out, as LanceDB leaves
// them out of listIndices() and stats().num_indices; their files still
// count in IndexBytes.
func (m *Manifest) readIndices(sec *lancepb.IndexSection, fields []*lancepb.Field) error {
	segs := sec.GetIndices()
	if len(segs) > maxIndexSegments {
		return fmt.Errorf("%d index segments is past the %d this reader takes", len(segs), maxIndexSegments)
	}
	paths, err := fieldPaths(fields)
	if err != nil {
		return err
	}
	byName := map[string]int{}
	covered := map[string][]fragmentSet{}
	for _, seg := range segs {
		size, sized := segmentBytes(seg)
		m.IndexBytes += size
		typ, dist, details, ok := indexType(seg.GetIndexDetails())
		if !ok {
			continue
		}
		set, err := parseFragmentSet(seg.GetFragmentBitmap())
		if err != nil {
			return fmt.Errorf("index %q: %w", seg.GetName(), err)
		}
		name := seg.GetName()
		i, seen := byName[name]
		if !seen {
			cols := make([]string, 0, len(seg.GetFields()))
			for _, id := range seg.GetFields() {
				p, ok := paths[id]
				if !ok {
					return fmt.Errorf("index %q names field %d, which the schema does not have", name, id)
				}
				cols = append(cols, p)
			}
			i = len(m.Indices)
			byName[name] = i
			var zero uint64
			m.Indices = append(m.Indices, Index{
				Name: name, UUID: uuidString(seg.GetUuid().GetUuid()), Columns: cols,
				Type: typ, TypeURL: seg.GetIndexDetails().GetTypeUrl(), DistanceType: dist,
				SizeBytes: &zero, Version: seg.GetIndexVersion(), Details: details,
			})
		}
		ix := &m.Indices[i]
		ix.Segments++
		if !sized {
			ix.SizeBytes = nil
		} else if ix.SizeBytes != nil {
			*ix.SizeBytes += size
		}
		if seg.CreatedAt != nil {
			at := time.UnixMilli(int64(min(seg.GetCreatedAt(), 1<<62))).UTC()
			if ix.CreatedAt == nil || at.Before(*ix.CreatedAt) {
				ix.CreatedAt = &at
			}
		}
		covered[name] = append(covered[name], set)
	}
	total := m.Rows()
	for i := range m.Indices {
		ix := &m.Indices[i]
		for _, f := range m.FragmentList {
			if f.ID > 1<<32-1 {
				continue // a Roaring bitmap of 32-bit ids cannot hold it
			}
			for _, set := range covered[ix.Name] {
				if set.contains(uint32(f.ID)) {
					ix.IndexedRows += f.Rows()
					break
				}
			}
		}
		ix.UnindexedRows = total - min(ix.IndexedRows, total)
	}
	return nil
}

// segmentBytes sums a segment's recorded file sizes; sized is false when
// it records no files.
func segmentBytes(seg *lancepb.IndexMetadata) (size uint64, sized bool) {
	for _, f := range seg.GetFiles() {
		size += f.GetSizeBytes()
	}
	return size, len(seg.GetFiles()) > 0
}

// indexType names a segment's type from its details; ok is false for the
// types LanceDB 0.39 does not list, and for a vector index too old to say
// how it was built (its details are empty).
func indexType(d *anypb.Any) (typ, distance string, details json.RawMessage, ok bool) {
	url := d.GetTypeUrl()
	msg := url[strings.LastIndexByte(url, '.')+1:]
	if t, ok := scalarTypes[msg]; ok {
		return t, "", nil, true
	}
	if msg != vectorDetails {
		return "", "", nil, false
	}
	var v lancepb.VectorIndexDetails
	if err := proto.Unmarshal(d.GetValue(), &v); err != nil {
		return "", "", nil, false
	}
	var comp any
	kind := ""
	switch {
	case v.Pq != nil:
		kind = "PQ"
		comp = map[string]any{"type": "pq", "num_bits": v.Pq.GetNumBits(), "num_sub_vectors": v.Pq.GetNumSubVectors()}
	case v.Sq != nil:
		kind = "SQ"
		comp = map[string]any{"type": "sq", "num_bits": v.Sq.GetNumBits()}
	case v.Rq != nil:
		kind = "RQ"
		comp = map[string]any{"type": "rq", "num_bits": v.Rq.GetNumBits()}
	case v.Flat != nil:
		kind = "FLAT"
	default:
		return "", "", nil, false
	}
	typ = "IVF_" + kind
	out := map[string]any{"metric_type": v.GetMetricType().String()}
	if comp != nil {
		out["compression"] = comp
	}
	if h := v.Hnsw; h != nil {
		if kind == "RQ" {
			return "", "", nil, false // LanceDB 0.39 has no HNSW over RQ
		}
		typ = "IVF_HNSW_" + kind
		out["hnsw"] = map[string]any{"max_connections": h.GetMaxConnections(), "construction_ef": h.GetConstructionEf(), "max_level": h.GetMaxLevel()}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", "", nil, false
	}
	return typ, strings.ToLower(v.GetMetricType().String()), b, true
}

// fieldPaths gives every field id its path, as Lance writes field paths.
func fieldPaths(fields []*lancepb.Field) (map[int32]string, error) {
	byID := make(map[int32]*lancepb.Field, len(fields))
	for _, f := range fields {
		byID[f.GetId()] = f
	}
	out := make(map[int32]string, len(fields))
	for _, f := range fields {
		var parts []string
		for cur, depth := f, 0; ; depth++ {
			if depth > maxSchemaDepth {
				return nil, fmt.Errorf("field %d nests deeper than %d levels", f.GetId(), maxSchemaDepth)
			}
			parts = append(parts, quotePathSegment(cur.GetName()))
			if cur.GetParentId() < 0 {
				break
			}
			next, ok := byID[cur.GetParentId()]
			if !ok {
				return nil, fmt.Errorf("field %d has parent %d, which the schema does not have", cur.GetId(), cur.GetParentId())
			}
			cur = next
		}
		for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
			parts[i], parts[j] = parts[j], parts[i]
		}
		out[f.GetId()] = strings.Join(parts, ".")
	}
	return out, nil
}

func quotePathSegment(name string) string {
	if !strings.ContainsAny(name, ".`") {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// uuidString writes 16 bytes in the hyphenated form; anything else as hex.
func uuidString(b []byte) string {
	h := hex.EncodeToString(b)
	if len(b) != 16 {
		return h
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
