package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/warehouse"
)

// DropTable drops a table: for its bucket's hold it becomes recently
// deleted (its name free, listed nowhere, its data kept; UndropTable brings
// it back), and the hold's end deletes its data directory. With a hold of 0
// the data goes at once, as it always did. It refuses (fault.Conflict) a
// protected table, and a location that is not a table's own directory:
// unparseable, outside its bucket, the bucket or a namespace directory, or
// a directory that overlaps another table's data.
func (s *Store) DropTable(ctx context.Context, ref TableRef) (Table, error) {
	d, err := s.DropTableWith(ctx, ref, DropOptions{})
	return d.Table, err
}

// DropTableAtVersion is DropTable on condition that the table's version
// token is still versionToken, checked in the same write transaction as the
// removal: a commit, rename or re-create that lands after the caller read
// the token makes the drop fail with fault.Conflict instead of silently
// discarding that change. An empty versionToken drops unconditionally.
func (s *Store) DropTableAtVersion(ctx context.Context, ref TableRef, versionToken string) (Table, error) {
	d, err := s.DropTableWith(ctx, ref, DropOptions{VersionToken: versionToken})
	return d.Table, err
}

// ForgetTable drops a table's entry and keeps every byte of its data (an
// Iceberg drop without purge); for the hold it is recently deleted, so it
// can be undropped.
func (s *Store) ForgetTable(ctx context.Context, ref TableRef) (Table, error) {
	d, err := s.DropTableWith(ctx, ref, DropOptions{KeepData: true})
	return d.Table, err
}

// DropTableWith is the one drop every surface reaches. The answer says
// what happened: Held() when the table is recently deleted until PurgeAt.
func (s *Store) DropTableWith(ctx context.Context, ref TableRef, opt DropOptions) (DeletedTable, error) {
	if err := validateRef(ref); err != nil {
		return DeletedTable{}, err
	}
	var d DeletedTable
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		t, err := s.getTable(ctx, tx, ref)
		if err != nil {
			return err
		}
		if opt.VersionToken != "" && opt.VersionToken != t.VersionToken {
			return newErr(fault.Conflict, "version_token",
				"table %q changed since it was read (version token mismatch); read it again and retry the drop", t.Name)
		}
		if err := checkTableProtection(t, "drop", opt.Force); err != nil {
			return err
		}
		if !opt.KeepData {
			if err := s.checkDeletable(ctx, tx, t, nil); err != nil {
				return err
			}
		}
		b, err := s.getBucket(ctx, tx, t.Bucket)
		if err != nil {
			return err
		}
		hold, err := s.holdOf(ctx, tx, b)
		if err != nil {
			return err
		}
		d = DeletedTable{Table: t, PurgeData: !opt.KeepData, DeletedBy: opt.By, Forced: opt.Force && t.Protected(), Reason: ReasonDrop}
		if hold == 0 {
			d.DeletedAt = s.now().UTC()
			return s.removeNow(ctx, tx, t, opt.KeepData)
		}
		m := s.newDeleteMeta(hold, opt.By, d.Forced, ReasonDrop)
		d.DeletedAt, d.PurgeAt, d.DropID = m.now, m.purgeAt, m.dropID
		return s.softDelete(ctx, tx, t, !opt.KeepData, m)
	})
	if err != nil {
		return DeletedTable{}, err
	}
	s.tableChanged(d.ID)
	s.tableEvent(droppedEvent(d.Table, d.PurgeData, d.Held(), d.PurgeAt))
	return d, nil
}

// checkDeletable refuses to delete a location that is not one table's own.
// dropping holds the ids being dropped together (cascade), whose shared
// locations are not a reason to refuse. Recently deleted tables count: a
// drop never deletes data another one still holds.
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
	held, err := s.deletedLocationUsers(ctx, q, loc, t.ID)
	if err != nil {
		return err
	}
	for _, u := range held {
		return newErr(fault.Conflict, "location",
			"refusing to delete the data of table %q at %q: recently deleted table %q (namespace %q of bucket %q) keeps data there until %s; purge or undrop it first",
			t.Name, t.Location, u.Name, JoinNamespace(u.Namespace), u.Bucket, u.PurgeAt.Format(time.RFC3339))
	}
	return nil
}

// loadTables reads every table matching a condition.
func (s *Store) loadTables(ctx context.Context, q querier, where string, args ...any) ([]Table, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE `+where, args...)
	if err != nil {
		return nil, dbErr("list tables", err)
	}
	defer rows.Close()
	var tables []Table
	for rows.Next() {
		t, err := s.scanTable(rows)
		if err != nil {
			return nil, dbErr("list tables", err)
		}
		tables = append(tables, t)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("list tables", err)
	}
	return tables, nil
}

// dropTables drops tables together (the cascade of namespace and bucket
// deletes): with a hold they become recently deleted, otherwise their data
// and entries go at once. keepData holds the ids whose data is never to be
// deleted (a table renamed in from another namespace): only their entries
// go. Every location is checked before anything is touched.
func (s *Store) dropTables(ctx context.Context, tx *persist.Tx, tables []Table, keepData map[string]bool, hold time.Duration, m deleteMeta) error {
	dropping := make(map[string]bool, len(tables))
	for _, t := range tables {
		dropping[t.ID] = true
	}
	for _, t := range tables {
		if keepData[t.ID] {
			continue
		}
		if err := s.checkDeletable(ctx, tx, t, dropping); err != nil {
			return err
		}
	}
	for _, t := range tables {
		var err error
		if hold == 0 {
			err = s.removeNow(ctx, tx, t, keepData[t.ID])
		} else {
			err = s.softDelete(ctx, tx, t, !keepData[t.ID], m)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// DeregisterTable hides a Lance table: its entry's state becomes
// deregistered and nothing in storage changes, not even a marker file. The
// state lives in the catalog only, so the table's objects are exactly what
// they were (a marker inside the table's prefix would be a new object in
// it, and there is no place outside the prefix a directory-catalog client
// would look). Deregistering a hidden table again changes nothing.
func (s *Store) DeregisterTable(ctx context.Context, ref TableRef) (Table, error) {
	return s.DeregisterTableWith(ctx, ref, false)
}

// DeregisterTableWith is DeregisterTable; force passes protection (a
// deregistered table is gone for every client, as after a drop).
func (s *Store) DeregisterTableWith(ctx context.Context, ref TableRef, force bool) (Table, error) {
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
		if err := checkTableProtection(t, "deregister", force); err != nil {
			return err
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
	return s.RenameTableWith(ctx, from, toNamespace, toName, RenameOptions{VersionToken: versionToken})
}

// RenameOptions say how a rename treats the version token and protection.
type RenameOptions struct {
	VersionToken string // see RenameTableAtVersion
	Force        bool   // passes protection (see DropOptions.Force)
}

// RenameTableWith is the one rename every surface reaches. A protected
// table refuses to be renamed away from its name unless forced.
func (s *Store) RenameTableWith(ctx context.Context, from TableRef, toNamespace []string, toName string, opt RenameOptions) (Table, error) {
	versionToken := opt.VersionToken
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
		if err := checkTableProtection(t, "rename", opt.Force); err != nil {
			return err
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
		if err := checkProtectedValue(props); err != nil {
			return err
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
