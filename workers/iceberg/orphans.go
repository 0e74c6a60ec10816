package iceworker

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
)

const (
	// maxListedOrphans bounds the paths a result carries (dry run or not):
	// enough to check by eye, small enough for one job result.
	maxListedOrphans = 50
	// versionHint is written beside metadata files by Hadoop-style
	// catalogs and readers look for it; it is never an orphan.
	versionHint = "version-hint.text"
)

// orphanScan is what a walk of the table's location found.
type orphanScan struct {
	old, young   []FileInfo // unreferenced files, past and within the age threshold
	oldBytes     int64
	lanceMarkers []string // files that only a Lance dataset has
	nestedFiles  int      // files of other tables nested in the location, left alone
}

// lanceMarker says whether a path inside a table location belongs to a
// Lance dataset (its manifests live in _versions/, its data in .lance files).
func lanceMarker(rel string) bool {
	rel = filepath.ToSlash(rel)
	return strings.HasPrefix(rel, "_versions/") || strings.Contains(rel, "/_versions/") ||
		strings.HasSuffix(rel, ".lance") || strings.HasSuffix(rel, ".manifest") || strings.HasPrefix(rel, "_transactions/")
}

// scanOrphans walks the table's location and sorts out the files no
// metadata references, reading every snapshot's manifests (exact: jobs
// delete by it).
func (j *Job) scanOrphans(ctx context.Context, tbl *table.Table, olderThan time.Duration) (*orphanScan, error) {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, err
	}
	r, err := reachOf(ctx, fs, tbl.Metadata().Snapshots())
	if err != nil {
		return nil, err
	}
	if err := j.findNested(ctx, tbl); err != nil {
		return nil, err
	}
	return j.listUnreferenced(ctx, tbl, r, olderThan)
}

// findNested learns which other tables of the catalog live inside this
// table's location (floe refuses such locations at create, but registered
// or older tables may have them): their files are theirs, never orphans
// of this table.
func (j *Job) findNested(ctx context.Context, tbl *table.Table) error {
	if j.nestedKnown {
		return nil
	}
	refs, err := j.Catalog.ListTables(ctx)
	if err != nil {
		return fmt.Errorf("list the catalog's tables to spare tables nested in %s: %w", j.Ref.Ident(), err)
	}
	j.nested, j.nestedKnown = nestedIn(Canonical(tbl.Location()), j.Ref.ID, refs), true
	return nil
}

// nestedIn returns the canonical locations of the tables in refs (other
// than self) that lie strictly inside root.
func nestedIn(root, self string, refs []TableRef) []string {
	var out []string
	for _, r := range refs {
		if l := Canonical(r.Location); r.ID != self && under(l, root) {
			out = append(out, l)
		}
	}
	return out
}

// nestedIndex maps each table ID to the locations of the tables inside
// its own, for a whole sweep at once: sorted locations put a location's
// subtree right after it.
func nestedIndex(refs []TableRef) map[string][]string {
	type loc struct{ id, l string }
	locs := make([]loc, 0, len(refs))
	for _, r := range refs {
		if l := Canonical(r.Location); l != "" {
			locs = append(locs, loc{r.ID, l})
		}
	}
	slices.SortFunc(locs, func(a, b loc) int { return strings.Compare(a.l, b.l) })
	out := map[string][]string{}
	for i, a := range locs {
		for _, b := range locs[i+1:] {
			if !strings.HasPrefix(b.l, a.l) {
				break // past every path that starts with a.l
			}
			if under(b.l, a.l) {
				out[a.id] = append(out[a.id], b.l)
			}
		}
	}
	return out
}

// under says whether path p lies strictly inside directory root.
func under(p, root string) bool {
	root = strings.TrimRight(root, "/")
	return root != "" && strings.HasPrefix(p, root+"/")
}

// listUnreferenced lists the table's location once and keeps the files
// neither r nor the table's metadata names.
func (j *Job) listUnreferenced(ctx context.Context, tbl *table.Table, r *reach, olderThan time.Duration) (*orphanScan, error) {
	meta := metadataFiles(tbl)
	root := Canonical(tbl.Location())
	if root == "" || root == "." || root == "/" {
		return nil, refuse("%s has no usable location (%q); nothing was touched", j.Ref.Ident(), tbl.Location())
	}
	cutoff := j.now().Add(-olderThan)
	sc := &orphanScan{}
	err := j.Files.List(ctx, root, func(f FileInfo) error {
		p := Canonical(f.Path)
		rel, err := filepath.Rel(root, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil // never outside the location
		}
		for _, n := range j.nested {
			if under(p, n) {
				sc.nestedFiles++
				return nil // another table's file
			}
		}
		if lanceMarker(rel) {
			sc.lanceMarkers = append(sc.lanceMarkers, rel)
			return nil
		}
		if r.has(p) || meta[p] || filepath.Base(p) == versionHint {
			return nil
		}
		if f.ModTime.Before(cutoff) {
			sc.old = append(sc.old, f)
			sc.oldBytes += f.Size
		} else {
			sc.young = append(sc.young, f)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the files of %s: %w", j.Ref.Ident(), err)
	}
	return sc, nil
}

// removeOrphans deletes (or, dry run, lists) files under the table's
// location that no metadata references and that are older than the
// threshold.
func (j *Job) removeOrphans(ctx context.Context, tbl *table.Table) (Outcome, error) {
	olderThan := time.Duration(j.Settings.Int("older_than_hours")) * time.Hour
	dry := j.Settings.Bool("dry_run")
	j.Progress("scanning", 10, "reading metadata and listing the table's files")
	sc, err := j.scanOrphans(ctx, tbl, olderThan)
	if err != nil {
		return Outcome{}, err
	}
	if len(sc.lanceMarkers) > 0 {
		return Outcome{}, refuse("%s holds Lance dataset files (%s): it is not an Iceberg table's own location, so nothing was deleted", j.Ref.Ident(), sc.lanceMarkers[0])
	}
	res := map[string]string{
		"orphan_files": itoa(int64(len(sc.old))), "orphan_bytes": itoa(sc.oldBytes),
		"young_unreferenced_files": itoa(int64(len(sc.young))), "dry_run": fmt.Sprint(dry),
	}
	if len(j.nested) > 0 {
		res["nested_tables_spared"] = itoa(int64(len(j.nested)))
		res["nested_table_files_spared"] = itoa(int64(sc.nestedFiles))
	}
	var listed []string
	for i, f := range sc.old {
		if i >= maxListedOrphans {
			break
		}
		rel, _ := filepath.Rel(Canonical(tbl.Location()), Canonical(f.Path))
		listed = append(listed, rel)
	}
	if len(listed) > 0 {
		res["orphans"] = strings.Join(listed, "\n")
	}
	if dry {
		return Outcome{Summary: fmt.Sprintf("dry run: %d orphan files (%d bytes) older than %s would be deleted; nothing was deleted", len(sc.old), sc.oldBytes, olderThan), Result: res}, nil
	}
	// A commit may have landed while we walked: re-read the metadata and
	// keep only files that are orphans in both views.
	if fresh, err := j.Catalog.Load(ctx, j.Ref); err != nil {
		return Outcome{}, err
	} else if fresh.MetadataLocation() != tbl.MetadataLocation() {
		again, err := j.scanOrphans(ctx, fresh, olderThan)
		if err != nil {
			return Outcome{}, err
		}
		still := map[string]bool{}
		for _, f := range again.old {
			still[Canonical(f.Path)] = true
		}
		sc.old = slices.DeleteFunc(sc.old, func(f FileInfo) bool { return !still[Canonical(f.Path)] })
		sc.oldBytes = 0
		for _, f := range sc.old {
			sc.oldBytes += f.Size
		}
	}
	j.Progress("deleting", 50, fmt.Sprintf("deleting %d orphan files", len(sc.old)))
	var deleted int
	for i, f := range sc.old {
		if err := j.Files.Remove(ctx, f.Path); err != nil {
			return Outcome{}, fmt.Errorf("delete orphan %s after deleting %d: %w", f.Path, deleted, err)
		}
		deleted++
		if i%100 == 0 {
			j.Progress("deleting", 50+50*float64(i)/float64(len(sc.old)), fmt.Sprintf("deleted %d of %d", deleted, len(sc.old)))
		}
	}
	res["deleted_files"] = itoa(int64(deleted))
	return Outcome{Summary: fmt.Sprintf("deleted %d orphan files (%d bytes) older than %s; kept %d younger unreferenced files", deleted, sc.oldBytes, olderThan, len(sc.young)), Result: res}, nil
}
