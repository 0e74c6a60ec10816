package iceworker

import (
	"context"
	"fmt"

	iceberggo "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// reach is what a set of snapshots needs on disk: their manifest lists,
// the manifests those name, and the data and delete files live in them
// (an entry that records a file's deletion does not keep the file).
type reach struct {
	lists     map[string]bool
	manifests map[string]bool
	files     map[string]bool
}

func newReach() *reach {
	return &reach{lists: map[string]bool{}, manifests: map[string]bool{}, files: map[string]bool{}}
}

// has says whether a canonical path is needed.
func (r *reach) has(p string) bool { return r.lists[p] || r.manifests[p] || r.files[p] }

// all returns every needed path.
func (r *reach) all() map[string]bool {
	out := make(map[string]bool, len(r.lists)+len(r.manifests)+len(r.files))
	for _, m := range []map[string]bool{r.lists, r.manifests, r.files} {
		for p := range m {
			out[p] = true
		}
	}
	return out
}

// manifestReader reads each manifest once: manifests are immutable and
// shared between snapshots, so a table with many snapshots costs one read
// per distinct manifest, not one per snapshot.
type manifestReader struct {
	fs   iceio.IO
	seen map[string]bool
}

func newManifestReader(fs iceio.IO) *manifestReader {
	return &manifestReader{fs: fs, seen: map[string]bool{}}
}

// addSnapshot adds one snapshot's files to r.
func (m *manifestReader) addSnapshot(ctx context.Context, r *reach, s table.Snapshot) error {
	if s.ManifestList == "" {
		return nil
	}
	r.lists[Canonical(s.ManifestList)] = true
	mans, err := s.Manifests(m.fs)
	if err != nil {
		return fmt.Errorf("read manifest list of snapshot %d: %w", s.SnapshotID, err)
	}
	for _, mf := range mans {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := Canonical(mf.FilePath())
		r.manifests[p] = true
		if m.seen[p] {
			continue
		}
		m.seen[p] = true
		for e, err := range mf.Entries(m.fs, true) {
			if err != nil {
				return fmt.Errorf("read manifest %s: %w", mf.FilePath(), err)
			}
			r.files[Canonical(e.DataFile().FilePath())] = true
		}
	}
	return nil
}

// reachOf collects what the given snapshots need.
func reachOf(ctx context.Context, fs iceio.IO, snaps []table.Snapshot) (*reach, error) {
	r := newReach()
	mr := newManifestReader(fs)
	for _, s := range snaps {
		if err := mr.addSnapshot(ctx, r, s); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// metadataFiles are the table's metadata JSON files still named by its
// metadata (the current one and the metadata log) plus statistics files.
func metadataFiles(tbl *table.Table) map[string]bool {
	out := map[string]bool{}
	if l := tbl.MetadataLocation(); l != "" {
		out[Canonical(l)] = true
	}
	md := tbl.Metadata()
	for e := range md.PreviousFiles() {
		out[Canonical(e.MetadataFile)] = true
	}
	for s := range md.Statistics() {
		out[Canonical(s.StatisticsPath)] = true
	}
	for s := range md.PartitionStatistics() {
		out[Canonical(s.StatisticsPath)] = true
	}
	return out
}

// isDeleteContent is true for position and equality delete files.
func isDeleteContent(c iceberggo.ManifestEntryContent) bool {
	return c == iceberggo.EntryContentPosDeletes || c == iceberggo.EntryContentEqDeletes
}
