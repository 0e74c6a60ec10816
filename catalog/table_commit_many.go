package catalog

import (
	"context"
	"database/sql"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// TableSwap is one table's part of a multi-table commit: the metadata
// pointer moves to MetadataLocation only if the table still carries
// ExpectedToken.
type TableSwap struct {
	ID, ExpectedToken, MetadataLocation string
	// Properties replace the entry's when non-nil.
	Properties map[string]string
}

// CommitTables swaps the metadata pointers of several tables in one
// database transaction: either every table still carries its expected
// version token and all move, or none does and the first mismatch is
// fault.Conflict (Field "version_token") naming that table. The tables are
// returned in the order given.
func (s *Store) CommitTables(ctx context.Context, swaps []TableSwap) ([]Table, error) {
	seen := map[string]bool{}
	for _, sw := range swaps {
		if seen[sw.ID] {
			return nil, Invalid("table_id", "table id "+sw.ID+" appears twice in one commit; merge its changes into one")
		}
		seen[sw.ID] = true
	}
	out := make([]Table, len(swaps))
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		for i, sw := range swaps {
			t, err := s.scanTable(tx.QueryRowContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE id = ?`, sw.ID))
			if err == sql.ErrNoRows {
				return newErr(fault.NotFound, "table_id", "table id %q does not exist; the table may have been dropped", sw.ID)
			}
			if err != nil {
				return dbErr("get table", err)
			}
			if t.VersionToken != sw.ExpectedToken {
				return newErr(fault.Conflict, "version_token",
					"table %q changed since it was read (version token mismatch); reload it and retry the commit", t.Name)
			}
			t.MetadataLocation = sw.MetadataLocation
			if sw.Properties != nil {
				t.Properties = make(map[string]string, len(sw.Properties))
				for k, v := range sw.Properties {
					t.Properties[k] = v
				}
			}
			if out[i], err = s.updateEntry(ctx, tx, t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, t := range out {
		s.tableChanged(t.ID)
		s.tableEvent(TableEvent{Kind: TableCommitted, Table: t})
	}
	return out, nil
}
