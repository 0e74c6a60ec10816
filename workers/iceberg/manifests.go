package iceworker

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go/table"
)

// rewriteManifests merges the current snapshot's small manifests per
// partition spec (iceberg-go's RewriteManifests, committed on main with
// its requirement on the current snapshot).
func (j *Job) rewriteManifests(ctx context.Context, tbl *table.Table) (Outcome, error) {
	if tbl.CurrentSnapshot() == nil {
		return Outcome{Summary: "nothing to rewrite: the table has no snapshot", Result: map[string]string{"rewritten_manifests": "0"}}, nil
	}
	j.Progress("rewriting", 20, "merging manifests")
	txn := tbl.NewTransaction()
	res, err := txn.RewriteManifests(ctx, table.WithManifestTargetSize(j.Settings.Int("target_manifest_size_mb")*mib))
	if err != nil {
		return Outcome{}, fmt.Errorf("rewrite the manifests of %s: %w", j.Ref.Ident(), err)
	}
	if res.IsNoOp() {
		return Outcome{Summary: "nothing to rewrite: " + res.NoOpReason.String(), Result: map[string]string{"rewritten_manifests": "0"}}, nil
	}
	j.Progress("committing", 80, "committing")
	if _, err := txn.Commit(ctx); err != nil {
		return Outcome{}, fmt.Errorf("commit the manifest rewrite of %s (nothing changed): %w", j.Ref.Ident(), err)
	}
	return Outcome{
		Summary: fmt.Sprintf("merged %d manifests into %d", len(res.RewrittenManifests), len(res.AddedManifests)),
		Result:  map[string]string{"rewritten_manifests": itoa(int64(len(res.RewrittenManifests))), "added_manifests": itoa(int64(len(res.AddedManifests)))},
	}, nil
}
