package catalog

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/warehouse"
)

// DropTable removes the entry and deletes the table's data directory. It
// refuses (fault.Conflict) when the location is not a table's own directory:
// unparseable, outside its bucket, the bucket or a namespace directory, or
// a directory that overlaps another table's data.
func (s *Store) DropTable(ctx context.Context, ref TableRef) (Table, error) {
	return s.removeTable(ctx, ref, true, "")
}

// DropTableAtVersion is DropTable on condition that the table's version
// token is still versionToken, checked in the same write transaction as the
// removal: a commit, rename or re-create that lands after the caller read
// the token makes the drop fail with fault.Conflict instead of silently
// discarding that change. An empty versionToken drops unconditionally.
func (s *Store) DropTableAtVersion(ctx context.Context, ref TableRef, versionToken string) (Table, error) {
	return s.removeTable(ctx, ref, true, versionToken)
}

// ForgetTable removes a table's entry and keeps every byte of its data (an
// Iceberg drop without purge).
func (s *Store) ForgetTable(ctx context.Context, ref TableRef) (Table, error) {
	return s.removeTable(ctx, ref, false, "")
}

// removeTable deletes the entry and, with deleteData, the data directory;
// a non-empty versionToken must match the table's current one.
func (s *Store) removeTable(ctx context.Context, ref TableRef, deleteData bool, versionToken string) (Table, error) {
	if err := validateRef(ref); err != nil {
		return Table{}, err
	}
	var t Table
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		if t, err = s.getTable(ctx, tx, ref); err != nil {
			return err
		}
		if versionToken != "" && versionToken != t.VersionToken {
			return newErr(fault.Conflict, "version_token",
				"table %q changed since it was read (version token mismatch); read it again and retry the drop", t.Name)
		}
		if deleteData {
			if err := s.checkDeletable(ctx, tx, t, nil); err != nil {
				return err
			}
			// Data first, inside the transaction: if deleting fails the
			// entry stays and the caller can retry.
			if err := s.deleteData(ctx, t); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tables WHERE id = ?`, t.ID); err != nil {
			return dbErr("delete table", err)
		}
		return nil
	})
	if err != nil {
		return Table{}, err
	}
	s.tableEvent(TableEvent{Kind: TableDropped, Table: t, DataDeleted: deleteData})
	return t, nil
}

// checkDeletable refuses to delete a location that is not one table's own.
// dropping holds the ids being dropped together (cascade), whose shared
// locations are not a reason to refuse.
func (s *Store) checkDeletable(ctx context.Context, q querier, t Table, dropping map[string]bool) error {
	loc, err := warehouse.Parse(t.Location)
	if err == nil {
		err = warehouse.CheckTablePlacement(s.BucketRoot(t.Bucket), loc)
	}
	if err != nil {
		return newErr(fault.Conflict, "location",
			"refusing to delete the data of table %q: %s; deregister or forget the table instead", t.Name, err)
	}
	users, err := s.locationUsers(ctx, q, loc, t.ID)
	if err != nil {
		return err
	}
	for _, u := range users {
		if !dropping[u.ID] {
			return newErr(fault.Conflict, "location",
				"refusing to delete the data of table %q at %q: table %q in namespace %q of bucket %q keeps data there; drop or repoint that table first",
				t.Name, t.Location, u.Name, JoinNamespace(u.Namespace), u.Bucket)
		}
	}
	return nil
}

// dropTablesWhere drops every table matching a condition, data included
// (the cascade of bucket and namespace deletes), and adds the dropped ones
// to *dropped for the caller to tell once its transaction committed.
func (s *Store) dropTablesWhere(ctx context.Context, tx *persist.Tx, dropped *[]Table, where string, args ...any) error {
	rows, err := tx.QueryContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE `+where, args...)
	if err != nil {
		return dbErr("list tables", err)
	}
	var tables []Table
	for rows.Next() {
		t, err := s.scanTable(rows)
		if err != nil {
			rows.Close()
			return dbErr("list tables", err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return dbErr("list tables", err)
	}
	dropping := make(map[string]bool, len(tables))
	for _, t := range tables {
		dropping[t.ID] = true
	}
	for _, t := range tables {
		if err := s.checkDeletable(ctx, tx, t, dropping); err != nil {
			return err
		}
	}
	for _, t := range tables {
		if err := s.deleteData(ctx, t); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM tables WHERE `+where, args...); err != nil {
		return dbErr("delete tables", err)
	}
	*dropped = tables // a retried transaction starts over
	return nil
}

// tellDropped reports a cascade's dropped tables once it committed.
func (s *Store) tellDropped(err error, dropped []Table) error {
	if err == nil {
		for _, t := range dropped {
			s.tableEvent(TableEvent{Kind: TableDropped, Table: t, DataDeleted: true})
		}
	}
	return err
}

// DeregisterTable hides a Lance table: its entry's state becomes
// deregistered and nothing in storage changes, not even a marker file. The
// state lives in the catalog only, so the table's objects are exactly what
// they were (a marker inside the table's prefix would be a new object in
// it, and there is no place outside the prefix a directory-catalog client
// would look). Deregistering a hidden table again changes nothing.
func (s *Store) DeregisterTable(ctx context.Context, ref TableRef) (Table, error) {
	if err := validateRef(ref); err != nil {
		return Table{}, err
	}
	var t Table
	var hidden bool
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		if t, err = s.getTable(ctx, tx, ref); err != nil {
			return err
		}
		if t.Format != FormatLance {
			return newErr(fault.Conflict, "format",
				"table %q is %s table; only Lance tables can be deregistered (drop it, or forget it to keep its data)", t.Name, withArticle(t.Format))
		}
		if t.State == StateDeregistered {
			return nil
		}
		t.State = StateDeregistered
		t, err = s.updateEntry(ctx, tx, t)
		hidden = err == nil
		return err
	})
	if err != nil {
		return Table{}, err
	}
	if hidden {
		s.tableEvent(TableEvent{Kind: TableDropped, Table: t, Deregistered: true})
	}
	return t, nil
}

// RenameTable moves the entry to another name and/or namespace of the same
// bucket; the data stays where it is and the table id is kept. An empty
// toNamespace keeps the namespace.
func (s *Store) RenameTable(ctx context.Context, from TableRef, toNamespace []string, toName string) (Table, error) {
	return s.RenameTableAtVersion(ctx, from, toNamespace, toName, "")
}

// RenameTableAtVersion renames a table only if its version token is still
// versionToken, checked in the rename's own write transaction, so a commit
// that lands between a client's read and its rename makes the rename fail
// with fault.Conflict. An empty versionToken renames unconditionally.
func (s *Store) RenameTableAtVersion(ctx context.Context, from TableRef, toNamespace []string, toName, versionToken string) (Table, error) {
	if err := validateRef(from); err != nil {
		return Table{}, err
	}
	if len(toNamespace) == 0 {
		toNamespace = from.Namespace
	}
	to := TableRef{Bucket: from.Bucket, Namespace: toNamespace, Name: toName}
	if err := validateRef(to); err != nil {
		return Table{}, err
	}
	var t Table
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		if t, err = s.getTable(ctx, tx, from); err != nil {
			return err
		}
		if versionToken != "" && versionToken != t.VersionToken {
			return newErr(fault.Conflict, "version_token",
				"table %q changed since it was read (version token mismatch); read it again and retry the rename", t.Name)
		}
		if JoinNamespace(to.Namespace) == JoinNamespace(from.Namespace) && to.Name == from.Name {
			return nil
		}
		if err := s.requireNamespace(ctx, tx, to.Bucket, JoinNamespace(to.Namespace)); err != nil {
			return err
		}
		if _, taken, err := s.findTable(ctx, tx, to); err != nil {
			return err
		} else if taken {
			return newErr(fault.AlreadyExists, "name", "table %q already exists in namespace %q of bucket %q; pick another name",
				to.Name, JoinNamespace(to.Namespace), to.Bucket)
		}
		if err := nameFreeOfViews(ctx, tx, to); err != nil {
			return err
		}
		t.Namespace = append([]string(nil), to.Namespace...)
		t.Name = to.Name
		t.VersionToken = newVersionToken()
		t.ModifiedAt = s.now().UTC()
		if _, err := tx.ExecContext(ctx, `UPDATE tables SET namespace = ?, name = ?, version_token = ?, modified_at = ? WHERE id = ?`,
			JoinNamespace(t.Namespace), t.Name, t.VersionToken, micros(t.ModifiedAt), t.ID); err != nil {
			return dbErr("rename table", err)
		}
		return moveTableGrants(ctx, tx, from, to)
	})
	if err != nil {
		return Table{}, err
	}
	return t, nil
}

// CommitTable swaps an Iceberg table's metadata location if the version token
// still matches (fault.Conflict otherwise) and returns the updated table. A nil
// props keeps the properties; otherwise they are replaced.
func (s *Store) CommitTable(ctx context.Context, id, expectedToken, newMetadataLocation string, props map[string]string) (Table, error) {
	var t Table
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		t, err = s.scanTable(tx.QueryRowContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE id = ?`, id))
		if err == sql.ErrNoRows {
			return newErr(fault.NotFound, "table_id", "table id %q does not exist; the table may have been dropped", id)
		}
		if err != nil {
			return dbErr("get table", err)
		}
		if t.VersionToken != expectedToken {
			return newErr(fault.Conflict, "version_token",
				"table %q changed since it was read (version token mismatch); reload it and retry the commit", t.Name)
		}
		t.MetadataLocation = newMetadataLocation
		if props != nil {
			t.Properties = map[string]string{}
			for k, v := range props {
				t.Properties[k] = v
			}
		}
		t, err = s.updateEntry(ctx, tx, t)
		return err
	})
	if err != nil {
		return Table{}, err
	}
	s.tableChanged(t.ID)
	s.tableEvent(TableEvent{Kind: TableCommitted, Table: t})
	return t, nil
}

// deleteData deletes a table's whole tree; checkDeletable has vouched that
// the location is the table's own.
func (s *Store) deleteData(ctx context.Context, t Table) error {
	loc, err := warehouse.Parse(t.Location)
	if err != nil {
		return Invalid("location", err.Error())
	}
	if err := s.wh.DeletePrefix(ctx, loc); err != nil {
		if warehouse.IsClientError(err) {
			return newErr(fault.Conflict, "location", "refusing to delete the data of table %q: %s", t.Name, err)
		}
		return fmt.Errorf("catalog: delete data of table %q at %s: %w", t.Name, t.Location, err)
	}
	return nil
}
