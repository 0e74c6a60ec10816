package iceworker

import (
	"context"
	"errors"
	"fmt"
	"slices"

	iceberggo "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/compaction"
)

const (
	// maxCommitAttempts bounds how often a compaction rebases its result on
	// a writer's newer snapshot before it gives up with a sentence.
	maxCommitAttempts = 5
	// compactBatchRows caps the rows decoded per Arrow batch while reading a
	// group: the rewrite streams batches to the Parquet writer, so the
	// batch, the buffer below and the row group being written, not the
	// table's size, bound the worker's memory.
	compactBatchRows = 64 << 10
	// compactBatchBytes sizes a batch for wide rows: at 1 KiB a row, 64 Ki
	// rows would be 64 MiB a batch, several of them in flight.
	compactBatchBytes = 1 << 20
	// compactRowGroupBytes sizes the Parquet row groups the rewrite writes:
	// the writer holds a whole row group in memory before it flushes it,
	// so a row-count limit alone (iceberg-go's default is 1 Mi rows) let a
	// 1 GiB table of 1 KiB rows become one 1 GiB row group in memory.
	compactRowGroupBytes = 8 << 20
	// minCompactRows keeps batches and row groups from becoming absurdly
	// small for very wide rows.
	minCompactRows = 1 << 10
	// maxRowGroupRows is iceberg-go's own default row-group limit: narrow
	// rows never get larger row groups than a plain write would.
	maxRowGroupRows = 1 << 20
	// compactBufferedBatches is how many decoded batches may wait for the
	// writer.
	compactBufferedBatches = 4
	// compactScanConcurrency is how many input files are read at once per
	// group; each holds one open file and its current page decoded (a
	// Parquet page of a file written with 20,000-row pages can be tens of
	// MiB), so one at a time keeps the worker within its memory bound.
	compactScanConcurrency = 1
)

// compactPlan bin-packs the current snapshot's small files per partition.
func compactPlan(ctx context.Context, tbl *table.Table, target int64, minInput uint) (compaction.Plan, []table.FileScanTask, error) {
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		return compaction.Plan{}, nil, fmt.Errorf("plan the files of the current snapshot: %w", err)
	}
	cfg := compaction.DefaultConfig()
	cfg.TargetFileSizeBytes = target
	cfg.MinFileSizeBytes = target * 3 / 4
	cfg.MaxFileSizeBytes = target * 9 / 5
	cfg.MinInputFiles = minInput
	plan, err := cfg.PlanCompaction(tasks)
	return plan, tasks, err
}

// compact rewrites small data files into files near the target size and
// commits one replace snapshot on main. A writer committing in between
// makes it re-stage the same rewritten files on the writer's snapshot (the
// writer's rows are in files the rewrite does not touch); if the writer
// removed or shadowed a file the rewrite replaces, it fails and deletes its
// own uncommitted output.
func (j *Job) compact(ctx context.Context, tbl *table.Table) (Outcome, error) {
	target := j.Settings.Int("target_file_size_mb") * mib
	if tbl.CurrentSnapshot() == nil {
		return Outcome{Summary: "nothing to compact: the table has no snapshot", Result: map[string]string{"rewritten_files": "0"}}, nil
	}
	j.Progress("planning", 5, "planning the rewrite")
	plan, tasks, err := compactPlan(ctx, tbl, target, uint(j.Settings.Int("min_input_files")))
	if err != nil {
		return Outcome{}, err
	}
	if len(plan.Groups) == 0 {
		return Outcome{Summary: fmt.Sprintf("nothing to compact: no partition has %d or more small files", j.Settings.Int("min_input_files")),
			Result: map[string]string{"rewritten_files": "0", "data_files": itoa(int64(len(tasks)))}}, nil
	}

	// Row-level deletes (position, equality, deletion vectors) are applied
	// by the scan that feeds the rewrite: the new files hold only live
	// rows, and position deletes that named only rewritten files go in the
	// same commit. Equality deletes stay; they no longer match the new
	// files' rows, which they already removed.
	applied := map[string]bool{}
	for _, g := range plan.Groups {
		for _, t := range g.Tasks {
			for _, d := range slices.Concat(t.DeleteFiles, t.EqualityDeleteFiles, t.DeletionVectorFiles) {
				applied[d.FilePath()] = true
			}
		}
	}
	base := tbl.CurrentSnapshot().SnapshotID
	var results []table.CompactionGroupResult
	var rows int64
	for i, g := range plan.Groups {
		if err := ctx.Err(); err != nil {
			j.discard(ctx, results)
			return Outcome{}, err
		}
		j.Progress("rewriting", 10+70*float64(i)/float64(len(plan.Groups)), fmt.Sprintf("partition %d of %d: %d files", i+1, len(plan.Groups), len(g.Tasks)))
		batchRows, groupRows := rowsFor(g.Tasks)
		gr, err := table.ExecuteCompactionGroup(ctx, tbl, table.CompactionTaskGroup{PartitionKey: g.PartitionKey, Tasks: g.Tasks, TotalSizeBytes: g.TotalSizeBytes},
			table.WithCompactionTargetFileSize(target), table.WithCompactionArrowBatchSize(batchRows), table.WithCompactionParquetRowGroupLimit(groupRows),
			table.WithCompactionRecordBatchBufferSize(compactBufferedBatches), table.WithCompactionScanConcurrency(compactScanConcurrency))
		if err != nil {
			j.discard(ctx, append(results, gr))
			return Outcome{}, fmt.Errorf("rewrite partition %q: %w", g.PartitionKey, err)
		}
		results = append(results, gr)
		for _, df := range gr.NewDataFiles {
			rows += df.Count() // live rows: deleted ones are not rewritten
		}
	}

	j.Progress("committing", 85, "committing the replace snapshot")
	var removed, added, droppedDeletes int
	var before, after int64
	for _, gr := range results {
		droppedDeletes += len(gr.SafePosDeletes) + len(gr.SafeDeletionVectors)
		removed += len(gr.OldDataFiles)
		added += len(gr.NewDataFiles)
		before += gr.BytesBefore
		after += gr.BytesAfter
	}
	props := iceberggo.Properties{"floe.maintenance": JobCompact}
	for attempt := 1; ; attempt++ {
		txn := tbl.NewTransaction()
		rw := txn.NewRewrite(props)
		for _, gr := range results {
			rw.ApplyResult(gr)
		}
		err := rw.Commit(ctx)
		if err == nil {
			_, err = txn.Commit(ctx)
		}
		if err == nil {
			break
		}
		if !isCommitConflict(err) || attempt >= maxCommitAttempts {
			j.discard(context.WithoutCancel(ctx), results)
			if isCommitConflict(err) {
				return Outcome{}, fmt.Errorf("%s kept changing under the compaction (%d commits lost to other writers); nothing was replaced and the rewritten files were deleted: %w", j.Ref.Ident(), attempt, err)
			}
			return Outcome{}, fmt.Errorf("the compaction of %s could not be committed (nothing was replaced; the rewritten files were deleted): %w", j.Ref.Ident(), err)
		}
		j.Progress("committing", 90, fmt.Sprintf("another writer committed first; re-staging on its snapshot (attempt %d)", attempt+1))
		if tbl, err = j.Catalog.Load(ctx, j.Ref); err != nil {
			j.discard(context.WithoutCancel(ctx), results)
			return Outcome{}, err
		}
		if err := onlyAppendsSince(tbl, base); err != nil {
			j.discard(context.WithoutCancel(ctx), results)
			return Outcome{}, fmt.Errorf("%s changed under the compaction in a way it cannot re-stage on (nothing was replaced; the rewritten files were deleted; run it again): %w", j.Ref.Ident(), err)
		}
	}
	return Outcome{
		Summary: fmt.Sprintf("compacted %d files into %d in %d partitions (%d rows, %d → %d bytes)%s", removed, added, len(results), rows, before, after, deletesNote(len(applied), droppedDeletes)),
		Result: map[string]string{"rewritten_files": itoa(int64(removed)), "added_files": itoa(int64(added)), "partitions": itoa(int64(len(results))),
			"rows": itoa(rows), "bytes_before": itoa(before), "bytes_after": itoa(after),
			"delete_files_applied": itoa(int64(len(applied))), "delete_files_removed": itoa(int64(droppedDeletes))},
	}, nil
}

// deletesNote tells people what the rewrite did with row-level deletes.
func deletesNote(applied, dropped int) string {
	if applied == 0 {
		return ""
	}
	return fmt.Sprintf("; applied %d delete files while rewriting and removed %d that named only rewritten files", applied, dropped)
}

// onlyAppendsSince says whether every snapshot after base on the current
// branch only appended: a rewrite re-staged over an append keeps the
// writer's rows in files it never touched, but a delete or overwrite may
// have removed rows from (or added deletes for) the files it replaces,
// which the re-staged files would bring back.
func onlyAppendsSince(tbl *table.Table, base int64) error {
	md := tbl.Metadata()
	for s := tbl.CurrentSnapshot(); s != nil && s.SnapshotID != base; {
		if s.Summary == nil || s.Summary.Operation != table.OpAppend {
			op := "unknown"
			if s.Summary != nil {
				op = string(s.Summary.Operation)
			}
			return fmt.Errorf("snapshot %d is a %s, not an append", s.SnapshotID, op)
		}
		if s.ParentSnapshotID == nil {
			return fmt.Errorf("snapshot %d is not a descendant of the compacted snapshot %d", s.SnapshotID, base)
		}
		s = md.SnapshotByID(*s.ParentSnapshotID)
	}
	return nil
}

// rowsFor sizes a group's read batches and written row groups in rows
// from its files' bytes per row (on disk; compressed data decodes larger,
// so the budgets leave room).
func rowsFor(tasks []table.FileScanTask) (batchRows, rowGroupRows int) {
	var bytes, rows int64
	for _, t := range tasks {
		bytes += t.File.FileSizeBytes()
		rows += t.File.Count()
	}
	perRow := max(1, bytes/max(1, rows))
	batchRows = int(min(max(compactBatchBytes/perRow, minCompactRows), compactBatchRows))
	rowGroupRows = int(min(max(compactRowGroupBytes/perRow, minCompactRows), maxRowGroupRows))
	return batchRows, rowGroupRows
}

// isCommitConflict says whether a commit lost to a concurrent one (the
// catalog's 409): that is worth a rebase, anything else is not.
func isCommitConflict(err error) bool {
	return errors.Is(err, table.ErrCommitFailed) || errors.Is(err, rest.ErrCommitFailed)
}

// discard deletes files a failed compaction wrote and never committed.
func (j *Job) discard(ctx context.Context, results []table.CompactionGroupResult) {
	for _, gr := range results {
		for _, df := range gr.NewDataFiles {
			_ = j.Files.Remove(ctx, df.FilePath()) // a leftover is an orphan the orphan job removes
		}
	}
}
