package iceberg

import (
	"context"
	"errors"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// TableChange is one table's part of a multi-table transaction.
type TableChange struct {
	Ref   catalog.TableRef
	Input CommitInput
}

// maxTransactionTables bounds one transaction: each table costs a metadata
// read and write before the swap, and engines commit a handful at a time.
const maxTransactionTables = 100

// CommitTransaction commits changes to several tables all or none: every
// table's requirements are checked and its next metadata written, then the
// catalog swaps all metadata pointers in one database transaction, which
// also fails if any table changed since it was read. On any failure no
// table changes and the metadata files written are removed. A staged create
// (assert-create) cannot be part of a transaction of two or more tables.
func (s *Tables) CommitTransaction(ctx context.Context, b catalog.Bucket, changes []TableChange) error {
	if len(changes) == 0 {
		return invalid("table-changes", "a transaction needs at least one table change")
	}
	if len(changes) > maxTransactionTables {
		return invalid("table-changes", "a transaction may change at most %d tables, this one changes %d", maxTransactionTables, len(changes))
	}
	if len(changes) == 1 {
		_, err := s.Commit(ctx, b, changes[0].Ref, changes[0].Input)
		return err
	}
	seen := map[string]bool{}
	var pending []pendingCommit
	undo := func() {
		for _, p := range pending {
			if p.next != nil {
				s.files.Remove(p.res.MetadataLocation) // ours alone: never referenced
			}
		}
	}
	for _, c := range changes {
		key := c.Ref.String()
		if seen[key] {
			undo()
			return invalid("table-changes", "table %s appears twice in the transaction; merge its changes into one", key)
		}
		seen[key] = true
		reqs, ups, err := parseCommit(c.Input)
		if err != nil {
			undo()
			return err
		}
		for _, q := range reqs {
			if q.Type == "assert-create" {
				undo()
				return invalid("requirements", "table %s: a transaction over several tables cannot create one; create it first", key)
			}
		}
		t, getErr := s.store.GetTable(ctx, c.Ref)
		p, err := s.prepareCommit(ctx, b, c.Ref, t, getErr, false, reqs, ups)
		if err != nil {
			undo()
			return err
		}
		pending = append(pending, p)
	}
	var swaps []catalog.TableSwap
	for _, p := range pending {
		if p.next != nil {
			swaps = append(swaps, catalog.TableSwap{ID: p.table.ID, ExpectedToken: p.table.VersionToken, MetadataLocation: p.res.MetadataLocation, Properties: p.next.Properties})
		} else {
			// Unchanged, but its requirements were checked against this
			// version: the swap must still find it there.
			swaps = append(swaps, catalog.TableSwap{ID: p.table.ID, ExpectedToken: p.table.VersionToken, MetadataLocation: p.table.MetadataLocation})
		}
	}
	if _, err := s.store.CommitTables(ctx, swaps); err != nil {
		undo()
		if errors.Is(err, fault.Conflict) {
			return commitFailed("%s; no table of the transaction was changed", err.Error())
		}
		return fromCatalog(err, "table")
	}
	for _, p := range pending {
		if p.next != nil {
			s.cache.put(p.res.MetadataLocation, &cachedMetadata{p.res.Metadata, p.next})
		}
	}
	return nil
}
