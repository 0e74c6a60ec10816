package lancemeta

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/lancemeta/lancepb"
	"github.com/floe/floe/warehouse"
)

// A Lance cleanup's dry run. LanceDB 0.39 has no way to ask what its
// cleanup would delete, so floe works it out the way the engine decides:
// it reads every manifest in _versions/ (and each one's index section),
// lists every object of the dataset, and applies the engine's rules.
//
//   - A version goes when its manifest was committed before the cutoff,
//     unless it is the latest or tagged; everything else is the working set.
//   - Only objects last modified no later than the oldest kept manifest are
//     candidates at all.
//   - A data file (data/*.lance), deletion file (_deletions/*.arrow|bin),
//     transaction file (_transactions/*.txn) or index directory
//     (_indices/<uuid>/) that the working set references stays. One only
//     old versions reference goes. One no manifest references goes when it
//     is older than seven days (younger, it may belong to a commit in
//     flight), as does a leftover _versions/.tmp* file.
//   - The old versions' manifests go.
//
// The rules follow Lance's rust/lance/src/dataset/cleanup.rs with
// delete_unverified off (floe never turns it on); the Lance worker's tests
// compare a dry run with the cleanup that follows it, file for file.

// unverifiedAge is how old a file no manifest references must be before a
// cleanup deletes it: the engine's seven days.
const unverifiedAge = 7 * 24 * time.Hour

// maxCleanupVersions bounds the manifests one dry run reads: far past the
// history a table keeps between cleanups; a dataset with more is planned
// in part and says so.
const maxCleanupVersions = 10_000

// CleanupPolicy says which versions a cleanup removes.
type CleanupPolicy struct {
	// Before is the cutoff: versions committed before it go (zero: none).
	Before time.Time
	// Tagged versions stay whatever their age.
	Tagged []uint64
	// Now is the clock the seven days are measured on (zero: time.Now).
	Now time.Time
}

// CleanupFile is one object a cleanup deletes, by its path inside the
// dataset.
type CleanupFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	Kind string `json:"kind"` // manifest, data, deletion, index, transaction, temporary
}

// CleanupPlan is what a cleanup with the policy deletes.
type CleanupPlan struct {
	Versions []uint64      `json:"versions"` // whose manifests go, ascending
	Kept     []uint64      `json:"kept"`     // the versions that stay
	Files    []CleanupFile `json:"files"`    // every object deleted, by path
	Bytes    int64         `json:"bytes"`
	// Unverified counts objects no manifest references that are kept
	// because they are younger than seven days.
	Unverified int `json:"unverified_kept"`
}

// manifestFile is one manifest with what a cleanup reads from it.
type manifestFile struct {
	version    uint64
	rel        string
	size       int64
	committed  time.Time
	data       []string // relative paths
	deletions  []string
	txn        string
	indexUUIDs []string
}

// PlanCleanup works out what a cleanup with pol deletes from the dataset
// at location, reading through the warehouse (local disk or S3 alike).
func PlanCleanup(ctx context.Context, wh *warehouse.Warehouse, location string, pol CleanupPolicy) (CleanupPlan, error) {
	root, err := wh.Parse(location)
	if err != nil {
		return CleanupPlan{}, err
	}
	now := pol.Now
	if now.IsZero() {
		now = time.Now()
	}
	objects := map[string]warehouse.Entry{}
	if err := wh.List(ctx, root, func(e warehouse.Entry) error {
		if rel, ok := e.Loc.Rel(root); ok {
			objects[rel] = e
		}
		return nil
	}); err != nil {
		return CleanupPlan{}, err
	}
	var manifests []manifestFile
	var latest uint64
	for rel, e := range objects {
		name, ok := strings.CutPrefix(rel, "_versions/")
		if !ok || strings.Contains(name, "/") {
			continue
		}
		v, ok := catalog.ParseManifestName(name)
		if !ok {
			continue
		}
		if len(manifests) >= maxCleanupVersions {
			return CleanupPlan{}, fmt.Errorf("the dataset has more than %d versions; a dry run plans at most that many", maxCleanupVersions)
		}
		manifests = append(manifests, manifestFile{version: v, rel: rel, size: e.Size})
		latest = max(latest, v)
	}
	if len(manifests) == 0 {
		return CleanupPlan{Versions: []uint64{}, Kept: []uint64{}, Files: []CleanupFile{}}, nil
	}
	for i := range manifests {
		if err := readForCleanup(ctx, wh, objects[manifests[i].rel].Loc, &manifests[i]); err != nil {
			return CleanupPlan{}, fmt.Errorf("read %s: %w", manifests[i].rel, err)
		}
	}
	slices.SortFunc(manifests, func(a, b manifestFile) int { return cmpU64(a.version, b.version) })

	working, verified := newRefs(), newRefs()
	plan := CleanupPlan{Versions: []uint64{}, Kept: []uint64{}, Files: []CleanupFile{}}
	var earliestKept time.Time
	var old []manifestFile
	for _, m := range manifests {
		keep := m.version >= latest || slices.Contains(pol.Tagged, m.version) || pol.Before.IsZero() || !m.committed.Before(pol.Before)
		refs := verified
		if keep {
			refs = working
			plan.Kept = append(plan.Kept, m.version)
			if earliestKept.IsZero() || m.committed.Before(earliestKept) {
				earliestKept = m.committed
			}
		} else {
			old = append(old, m)
			plan.Versions = append(plan.Versions, m.version)
		}
		refs.add(m)
	}
	threshold := now.Add(-unverifiedAge)
	for rel, e := range objects {
		if e.ModTime.After(earliestKept) {
			continue // newer than every kept version: never a candidate
		}
		young := !e.ModTime.Before(threshold)
		kind, del, unverified := judge(rel, young, working, verified)
		if del {
			plan.Files = append(plan.Files, CleanupFile{Path: rel, Size: e.Size, Kind: kind})
			plan.Bytes += e.Size
		} else if unverified {
			plan.Unverified++
		}
	}
	for _, m := range old {
		plan.Files = append(plan.Files, CleanupFile{Path: m.rel, Size: m.size, Kind: "manifest"})
		plan.Bytes += m.size
	}
	slices.SortFunc(plan.Files, func(a, b CleanupFile) int { return strings.Compare(a.Path, b.Path) })
	return plan, nil
}

// judge decides one listed object: its kind, whether the cleanup deletes
// it, and whether it is kept only because it is young and unreferenced.
func judge(rel string, young bool, working, verified refs) (kind string, del, unverified bool) {
	decide := func(kind string, inWorking, inVerified bool) (string, bool, bool) {
		switch {
		case inWorking:
			return kind, false, false
		case !young:
			return kind, true, false
		case inVerified:
			return kind, true, false
		}
		return kind, false, true
	}
	if strings.HasPrefix(rel, "_versions/.tmp") {
		return "temporary", !young, young
	}
	if rest, ok := strings.CutPrefix(rel, "_indices/"); ok {
		uuid, _, _ := strings.Cut(rest, "/") // indices are referenced by the uuid of their directory
		if k, d, u := decide("index", working.index[uuid], verified.index[uuid]); d || !u {
			return k, d, u
		}
		// Young and neither kept nor old: the engine then goes by the
		// file's extension, and no rule there deletes an index file.
		return "index", false, true
	}
	switch ext(rel) {
	case "lance":
		if strings.HasPrefix(rel, "data/") {
			return decide("data", working.data[rel], verified.data[rel])
		}
	case "arrow", "bin":
		if strings.HasPrefix(rel, "_deletions/") {
			return decide("deletion", working.deletion[rel], verified.deletion[rel])
		}
	case "txn":
		if strings.HasPrefix(rel, "_transactions/") {
			if working.txn[rel] {
				return "transaction", false, false
			}
			if !young || verified.txn[rel] {
				return "transaction", true, false
			}
			return "transaction", false, true
		}
	}
	return "", false, false
}

// ext is the extension of a path's last segment, as object stores see it.
func ext(rel string) string {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return ""
	}
	return base[i+1:]
}

type refs struct {
	data, deletion, txn, index map[string]bool
}

func newRefs() refs {
	return refs{data: map[string]bool{}, deletion: map[string]bool{}, txn: map[string]bool{}, index: map[string]bool{}}
}

func (r refs) add(m manifestFile) {
	for _, p := range m.data {
		r.data[p] = true
	}
	for _, p := range m.deletions {
		r.deletion[p] = true
	}
	if m.txn != "" {
		r.txn[m.txn] = true
	}
	for _, u := range m.indexUUIDs {
		r.index[u] = true
	}
}

// readForCleanup reads one manifest's files, deletion files, transaction
// file, commit time and index uuids.
func readForCleanup(ctx context.Context, wh *warehouse.Warehouse, loc warehouse.Location, m *manifestFile) error {
	f, err := wh.Open(ctx, loc)
	if err != nil {
		return err
	}
	defer f.Close()
	size := f.Size()
	pb, err := readMessage[lancepb.Manifest](f, size, -1)
	if err != nil {
		return err
	}
	m.committed = time.Unix(pb.GetTimestamp().GetSeconds(), int64(pb.GetTimestamp().GetNanos()))
	for _, fr := range pb.GetFragments() {
		for _, df := range fr.GetFiles() {
			m.data = append(m.data, "data/"+df.GetPath())
		}
		if d := fr.GetDeletionFile(); d != nil {
			suffix := "arrow"
			if d.GetFileType() == lancepb.DeletionFile_BITMAP {
				suffix = "bin"
			}
			m.deletions = append(m.deletions, fmt.Sprintf("_deletions/%d-%d-%d.%s", fr.GetId(), d.GetReadVersion(), d.GetId(), suffix))
		}
	}
	if t := pb.GetTransactionFile(); t != "" {
		m.txn = "_transactions/" + t
	}
	if pb.IndexSection != nil {
		sec, err := readMessage[lancepb.IndexSection](f, size, int64(pb.GetIndexSection()))
		if err != nil {
			return fmt.Errorf("index section: %w", err)
		}
		for _, ix := range sec.GetIndices() {
			m.indexUUIDs = append(m.indexUUIDs, uuidString(ix.GetUuid().GetUuid()))
		}
	}
	return nil
}

// readMessage reads a u32-length-framed protobuf message at pos in a
// manifest file, or (pos < 0) the manifest the footer points at.
func readMessage[T any, P interface {
	*T
	proto.Message
}](r io.ReaderAt, size, pos int64) (P, error) {
	if pos < 0 {
		if size < footerBytes+4 {
			return nil, fmt.Errorf("%w: %d bytes is shorter than a footer", ErrCorrupt, size)
		}
		var foot [footerBytes]byte
		if _, err := r.ReadAt(foot[:], size-footerBytes); err != nil {
			return nil, err
		}
		if string(foot[12:]) != string(magic) {
			return nil, fmt.Errorf("%w: no LANC magic at the end", ErrCorrupt)
		}
		pos = int64(binary.LittleEndian.Uint64(foot[:8]))
	}
	if pos < 0 || pos > size-footerBytes-4 {
		return nil, fmt.Errorf("%w: message position %d is outside the file", ErrCorrupt, pos)
	}
	var lenBuf [4]byte
	if _, err := r.ReadAt(lenBuf[:], pos); err != nil {
		return nil, err
	}
	n := int64(binary.LittleEndian.Uint32(lenBuf[:]))
	if n > MaxManifestBytes || pos+4+n > size {
		return nil, fmt.Errorf("%w: a message of %d bytes at %d does not fit the file", ErrCorrupt, n, pos)
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, pos+4); err != nil {
		return nil, err
	}
	msg := P(new(T))
	if err := proto.Unmarshal(buf, msg); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return msg, nil
}

// uuidString writes 16 bytes the way Lance names an index directory.
func uuidString(b []byte) string {
	if len(b) != 16 {
		return fmt.Sprintf("%x", b)
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
