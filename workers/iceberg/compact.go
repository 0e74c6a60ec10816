package iceworker

import (
	"context"
	"errors"
	"fmt"

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
	// group: the rewrite streams batches to the Parquet writer, so this and
	// the buffer below, not the table's size, bound the worker's memory.
	compactBatchRows = 64 << 10
	// compactBufferedBatches is how many decoded batches may wait for the
	// writer.
	compactBufferedBatches = 4
	// compactScanConcurrency is how many input files are read at once per
	// group; each holds one open file and its current batch.
	compactScanConcurrency = 2
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
	for _, t := range tasks {
		if len(t.DeleteFiles)+len(t.EqualityDeleteFiles)+len(t.DeletionVectorFiles) > 0 {
			return Outcome{}, refuse("%s has delete files (row-level deletes): this worker does not apply them while rewriting, so it compacts nothing rather than risk resurrecting deleted rows; rewrite the table with an engine that applies them, then compact", j.Ref.Ident())
		}
	}
	if len(plan.Groups) == 0 {
		return Outcome{Summary: fmt.Sprintf("nothing to compact: no partition has %d or more small files", j.Settings.Int("min_input_files")),
			Result: map[string]string{"rewritten_files": "0", "data_files": itoa(int64(len(tasks)))}}, nil
	}

	var results []table.CompactionGroupResult
	var rows int64
	for i, g := range plan.Groups {
		if err := ctx.Err(); err != nil {
			j.discard(ctx, results)
			return Outcome{}, err
		}
		j.Progress("rewriting", 10+70*float64(i)/float64(len(plan.Groups)), fmt.Sprintf("partition %d of %d: %d files", i+1, len(plan.Groups), len(g.Tasks)))
		gr, err := table.ExecuteCompactionGroup(ctx, tbl, table.CompactionTaskGroup{PartitionKey: g.PartitionKey, Tasks: g.Tasks, TotalSizeBytes: g.TotalSizeBytes},
			table.WithCompactionTargetFileSize(target), table.WithCompactionArrowBatchSize(compactBatchRows),
			table.WithCompactionRecordBatchBufferSize(compactBufferedBatches), table.WithCompactionScanConcurrency(compactScanConcurrency))
		if err != nil {
			j.discard(ctx, append(results, gr))
			return Outcome{}, fmt.Errorf("rewrite partition %q: %w", g.PartitionKey, err)
		}
		results = append(results, gr)
		for _, t := range g.Tasks {
			rows += t.File.Count()
		}
	}

	j.Progress("committing", 85, "committing the replace snapshot")
	var removed, added int
	var before, after int64
	for _, gr := range results {
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
	}
	return Outcome{
		Summary: fmt.Sprintf("compacted %d files into %d in %d partitions (%d rows, %d → %d bytes)", removed, added, len(results), rows, before, after),
		Result: map[string]string{"rewritten_files": itoa(int64(removed)), "added_files": itoa(int64(added)), "partitions": itoa(int64(len(results))),
			"rows": itoa(rows), "bytes_before": itoa(before), "bytes_after": itoa(after)},
	}, nil
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
