package iceworker

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
)

// expirePlan is which snapshots go and which stay.
type expirePlan struct {
	keep, drop []table.Snapshot
}

// planExpiry keeps every snapshot a branch or tag points to, the newest
// retainLast of each branch's history, and every snapshot younger than
// maxAge (maxAge 0: age keeps nothing); the rest go.
func planExpiry(md table.Metadata, now time.Time, maxAge time.Duration, retainLast int) expirePlan {
	keep := map[int64]bool{}
	lookup := func(id int64) *table.Snapshot { return md.SnapshotByID(id) }
	for _, ref := range md.Refs() {
		keep[ref.SnapshotID] = true
		if ref.SnapshotRefType != table.BranchRef {
			continue
		}
		n := 0
		for _, s := range table.AncestorsOf(ref.SnapshotID, lookup) {
			if n >= retainLast {
				break
			}
			keep[s.SnapshotID] = true
			n++
		}
	}
	cutoff := now.Add(-maxAge).UnixMilli()
	var p expirePlan
	for _, s := range md.Snapshots() {
		if keep[s.SnapshotID] || (maxAge > 0 && s.TimestampMs >= cutoff) {
			p.keep = append(p.keep, s)
		} else {
			p.drop = append(p.drop, s)
		}
	}
	return p
}

// expire removes the planned snapshots with one commit that asserts every
// ref still points where it did, then deletes the files only the removed
// snapshots needed.
func (j *Job) expire(ctx context.Context, tbl *table.Table) (Outcome, error) {
	maxAge := time.Duration(j.Settings.Int("max_snapshot_age_hours")) * time.Hour
	plan := planExpiry(tbl.Metadata(), j.now(), maxAge, int(j.Settings.Int("retain_last")))
	if len(plan.drop) == 0 {
		return Outcome{Summary: fmt.Sprintf("nothing to expire: all %d snapshots are kept", len(plan.keep)),
			Result: map[string]string{"expired_snapshots": "0", "deleted_files": "0"}}, nil
	}
	j.Progress("reading", 10, fmt.Sprintf("reading manifests of %d snapshots", len(plan.keep)+len(plan.drop)))
	fs, err := tbl.FS(ctx)
	if err != nil {
		return Outcome{}, err
	}
	kept, err := reachOf(ctx, fs, plan.keep)
	if err != nil {
		return Outcome{}, err
	}
	gone, err := reachOf(ctx, fs, plan.drop)
	if err != nil {
		return Outcome{}, err
	}
	if j.Settings.Bool("dry_run") {
		return j.expireDryRun(ctx, tbl, plan, kept, gone)
	}

	j.Progress("committing", 50, fmt.Sprintf("removing %d snapshots", len(plan.drop)))
	reqs := []table.Requirement{table.AssertTableUUID(tbl.Metadata().TableUUID())}
	for name, ref := range tbl.Metadata().Refs() {
		id := ref.SnapshotID
		reqs = append(reqs, table.AssertRefSnapshotID(name, &id))
	}
	ids := make([]int64, 0, len(plan.drop))
	for _, s := range plan.drop {
		ids = append(ids, s.SnapshotID)
	}
	rc, err := j.Catalog.forBucket(ctx, j.Ref.Bucket)
	if err != nil {
		return Outcome{}, err
	}
	if _, _, err := rc.CommitTable(ctx, j.Ref.identifier(), reqs, []table.Update{table.NewRemoveSnapshotsUpdate(ids, false)}); err != nil {
		return Outcome{}, fmt.Errorf("commit the expiry of %d snapshots of %s (nothing was deleted): %w", len(ids), j.Ref.Ident(), err)
	}

	// Only after the commit: until then every file may still be read.
	j.Progress("deleting", 70, "deleting files no remaining snapshot needs")
	var deleted, failed int
	var firstErr error
	for _, p := range sortedKeys(gone.all()) {
		if kept.has(p) {
			continue
		}
		if err := j.Files.Remove(ctx, p); err != nil {
			failed++
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		deleted++
	}
	out := Outcome{
		Summary: fmt.Sprintf("expired %d of %d snapshots; deleted %d files no remaining snapshot needs", len(ids), len(ids)+len(plan.keep), deleted),
		Result:  map[string]string{"expired_snapshots": itoa(int64(len(ids))), "kept_snapshots": itoa(int64(len(plan.keep))), "deleted_files": itoa(int64(deleted))},
	}
	if failed > 0 {
		// The snapshots are gone either way; leftover files are orphans the
		// orphan job removes later, so this is reported, not failed.
		out.Result["undeleted_files"] = itoa(int64(failed))
		out.Summary += fmt.Sprintf("; %d files could not be deleted (%v) and are left for orphan removal", failed, firstErr)
	}
	return out, nil
}

// maxListedExpiry bounds the file list a dry run puts in its result; the
// counts and bytes always cover every file.
const maxListedExpiry = 1000

// expireDryRun reports what expire would do with the same plan — the
// snapshots it removes and every file only they need, with their bytes
// from a listing of the table's location — and commits and deletes
// nothing.
func (j *Job) expireDryRun(ctx context.Context, tbl *table.Table, plan expirePlan, kept, gone *reach) (Outcome, error) {
	j.Progress("listing", 60, "listing the table's files for their sizes")
	loc := Canonical(tbl.Location())
	sizes := map[string]int64{}
	if err := j.Files.List(ctx, tbl.Location(), func(f FileInfo) error {
		sizes[Canonical(f.Path)] = f.Size
		return nil
	}); err != nil {
		return Outcome{}, fmt.Errorf("list the files of %s: %w", j.Ref.Ident(), err)
	}
	var files []string
	var bytes int64
	for _, p := range sortedKeys(gone.all()) {
		if kept.has(p) {
			continue
		}
		files = append(files, p)
		bytes += sizes[Canonical(p)]
	}
	ids := make([]string, 0, len(plan.drop))
	for _, s := range plan.drop {
		ids = append(ids, fmt.Sprint(s.SnapshotID))
	}
	var listed []string
	for i, p := range files {
		if i >= maxListedExpiry {
			break
		}
		if rel, err := filepath.Rel(loc, Canonical(p)); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		}
		listed = append(listed, p)
	}
	res := map[string]string{
		"dry_run": "true", "expired_snapshots": "0", "deleted_files": "0",
		"snapshots_would_expire": itoa(int64(len(plan.drop))), "kept_snapshots": itoa(int64(len(plan.keep))),
		"snapshot_ids_would_expire": strings.Join(ids, "\n"),
		"files_would_delete":        itoa(int64(len(files))), "bytes_would_delete": itoa(bytes),
	}
	if len(listed) > 0 {
		res["files"] = strings.Join(listed, "\n")
	}
	return Outcome{Summary: fmt.Sprintf("dry run: would expire %d of %d snapshots and delete %d files (%d bytes) no remaining snapshot needs; nothing was committed or deleted",
		len(plan.drop), len(plan.drop)+len(plan.keep), len(files), bytes), Result: res}, nil
}
