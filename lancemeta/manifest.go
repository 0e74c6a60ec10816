// Package lancemeta reads a Lance dataset's own metadata in Go: the manifest
// of its latest version (schema, fragments, row counts), through the
// warehouse so it works on local disk and S3 alike. It knows nothing of HTTP;
// the Lance REST surface calls it for DescribeTable's detailed metadata.
// The protobuf types (lancepb) stay inside: callers get plain Go values.
package lancemeta

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/lancemeta/lancepb"
	"github.com/floe/floe/warehouse"
)

const (
	// MaxManifestBytes bounds the manifest message read from one file. A
	// manifest lists every fragment with its files (about 100 bytes each),
	// so 64 MiB covers datasets of several hundred thousand fragments, far
	// past where compaction is overdue; a larger claim is a corrupt footer.
	MaxManifestBytes = 64 << 20
	// footerBytes is the manifest file's footer: i64 position, two u16
	// format versions and the magic.
	footerBytes = 16
	// maxSchemaDepth bounds how deeply the schema tree is followed. Arrow
	// schemas from real writers nest a handful of levels; a deeper (or
	// cyclic) parent chain comes from a damaged file.
	maxSchemaDepth = 64
)

var magic = []byte("LANC")

// ErrCorrupt marks a manifest that cannot be decoded: bad footer, length
// past the bounds, or a message that is not a Lance manifest.
var ErrCorrupt = errors.New("corrupt Lance manifest")

// Manifest is what floe reads from a version's manifest.
type Manifest struct {
	Version     uint64
	Schema      Schema
	Fragments   int
	PhysicalRow uint64 // rows written, deleted ones included
	DeletedRows uint64
	// FragmentList holds each fragment's id and row counts, in the
	// manifest's order.
	FragmentList []Fragment
	// DataBytes sums the sizes the manifest records for the fragments'
	// data files (a file written before Lance recorded sizes counts 0).
	DataBytes uint64
	// Indices are the indices LanceDB lists (see Index), in the order of
	// their first segment in the manifest.
	Indices []Index
	// IndexBytes sums the recorded file sizes of every index segment,
	// those of index types not in Indices included.
	IndexBytes uint64
}

// Fragment is one fragment's figures.
type Fragment struct {
	ID           uint64
	PhysicalRows uint64 // rows written, deleted ones included
	DeletedRows  uint64
}

// Rows is the fragment's live rows.
func (f Fragment) Rows() uint64 {
	if f.DeletedRows > f.PhysicalRows {
		return 0
	}
	return f.PhysicalRows - f.DeletedRows
}

// Rows is the number of live rows.
func (m Manifest) Rows() uint64 {
	if m.DeletedRows > m.PhysicalRow {
		return 0
	}
	return m.PhysicalRow - m.DeletedRows
}

// Latest finds the newest manifest of the dataset at location and reads it.
// A dataset with no version yet answers found=false.
func Latest(ctx context.Context, wh *warehouse.Warehouse, location string) (m Manifest, found bool, err error) {
	return Version(ctx, wh, location, 0)
}

// Version reads the manifest of one version of the dataset at location
// (0: the newest). A version that is not there answers found=false.
func Version(ctx context.Context, wh *warehouse.Warehouse, location string, want uint64) (m Manifest, found bool, err error) {
	loc, err := wh.Parse(location)
	if err != nil {
		return Manifest{}, false, err
	}
	dir, err := loc.Join("_versions")
	if err != nil {
		return Manifest{}, false, err
	}
	var best uint64
	var path warehouse.Location
	err = wh.List(ctx, dir, func(e warehouse.Entry) error {
		rel, _ := e.Loc.Rel(dir)
		if strings.Contains(rel, "/") {
			return nil // manifests sit directly in _versions/
		}
		v, ok := catalog.ParseManifestName(rel)
		if ok && ((want == 0 && v >= best) || v == want) {
			best, path = v, e.Loc
		}
		return nil
	})
	if err != nil {
		return Manifest{}, false, err
	}
	if path.IsZero() {
		return Manifest{}, false, nil
	}
	m, err = Read(ctx, wh, path)
	return m, err == nil, err
}

// Read reads one manifest file through the warehouse: the footer first,
// then only the manifest's byte range.
func Read(ctx context.Context, wh *warehouse.Warehouse, path warehouse.Location) (Manifest, error) {
	f, err := wh.Open(ctx, path)
	if err != nil {
		return Manifest{}, err
	}
	defer f.Close()
	return decode(f, f.Size())
}

// Decode reads a manifest from a whole manifest file's bytes.
func Decode(file []byte) (Manifest, error) {
	return decode(bytes.NewReader(file), int64(len(file)))
}

func decode(r io.ReaderAt, size int64) (Manifest, error) {
	if size < footerBytes+4 {
		return Manifest{}, fmt.Errorf("%w: %d bytes is shorter than a footer", ErrCorrupt, size)
	}
	var foot [footerBytes]byte
	if _, err := r.ReadAt(foot[:], size-footerBytes); err != nil {
		return Manifest{}, err
	}
	if !bytes.Equal(foot[12:], magic) {
		return Manifest{}, fmt.Errorf("%w: no LANC magic at the end", ErrCorrupt)
	}
	pos := int64(binary.LittleEndian.Uint64(foot[:8]))
	if pos < 0 || pos > size-footerBytes-4 {
		return Manifest{}, fmt.Errorf("%w: manifest position %d is outside the file", ErrCorrupt, pos)
	}
	span := size - footerBytes - pos // u32 length + message
	if span-4 > MaxManifestBytes {
		return Manifest{}, fmt.Errorf("%w: manifest of %d bytes is past the %d-byte limit", ErrCorrupt, span-4, MaxManifestBytes)
	}
	buf := make([]byte, span)
	if _, err := r.ReadAt(buf, pos); err != nil {
		return Manifest{}, err
	}
	if n := int64(binary.LittleEndian.Uint32(buf[:4])); n != span-4 {
		return Manifest{}, fmt.Errorf("%w: recorded length %d, found %d", ErrCorrupt, n, span-4)
	}
	var pb lancepb.Manifest
	if err := proto.Unmarshal(buf[4:], &pb); err != nil {
		return Manifest{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	m := Manifest{Version: pb.GetVersion(), Fragments: len(pb.GetFragments())}
	m.FragmentList = make([]Fragment, 0, len(pb.GetFragments()))
	for _, fr := range pb.GetFragments() {
		f := Fragment{ID: fr.GetId(), PhysicalRows: fr.GetPhysicalRows(), DeletedRows: fr.GetDeletionFile().GetNumDeletedRows()}
		m.FragmentList = append(m.FragmentList, f)
		m.PhysicalRow += f.PhysicalRows
		m.DeletedRows += f.DeletedRows
		for _, df := range fr.GetFiles() {
			m.DataBytes += df.GetFileSizeBytes()
		}
	}
	schema, err := schemaOf(pb.GetFields(), pb.GetSchemaMetadata())
	if err != nil {
		return Manifest{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	m.Schema = schema
	if pb.IndexSection != nil {
		sec, err := readIndexSection(r, int64(pb.GetIndexSection()), pos)
		if err != nil {
			return Manifest{}, err
		}
		if err := m.readIndices(sec, pb.GetFields()); err != nil {
			return Manifest{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	return m, nil
}

// readIndexSection reads the IndexSection message at pos: a little-endian
// u32 length and the message, which Lance writes before the manifest
// message (at manifestPos), so it must end there.
func readIndexSection(r io.ReaderAt, pos, manifestPos int64) (*lancepb.IndexSection, error) {
	if pos < 0 || pos+4 > manifestPos {
		return nil, fmt.Errorf("%w: index section at %d is outside the file's metadata", ErrCorrupt, pos)
	}
	var head [4]byte
	if _, err := r.ReadAt(head[:], pos); err != nil {
		return nil, err
	}
	n := int64(binary.LittleEndian.Uint32(head[:]))
	if n > MaxManifestBytes || pos+4+n > manifestPos {
		return nil, fmt.Errorf("%w: index section of %d bytes does not fit before the manifest", ErrCorrupt, n)
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, pos+4); err != nil {
		return nil, err
	}
	var sec lancepb.IndexSection
	if err := proto.Unmarshal(buf, &sec); err != nil {
		return nil, fmt.Errorf("%w: index section: %v", ErrCorrupt, err)
	}
	return &sec, nil
}

// metadataStrings turns protobuf byte maps into string maps (nil when empty).
func metadataStrings(in map[string][]byte) map[string]string {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]string, len(in))
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out[k] = string(in[k])
	}
	return out
}
