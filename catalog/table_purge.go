package catalog

import (
	"context"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// purgeLease is how long one process holds a recently deleted table it is
// purging: far past the longest delete measured (10,000 objects on S3 in
// about 15 s), so a purge in progress is never taken over, and short enough
// that a replica that died mid-purge leaves the table to another within
// minutes.
const purgeLease = 10 * time.Minute

// PurgeDeletedTable deletes a recently deleted table now instead of at the
// end of its hold: its data (unless its drop kept the data), with today's
// location guards, then its entry. A protected table (dropped with force)
// needs force again.
func (s *Store) PurgeDeletedTable(ctx context.Context, id string, force bool) (DeletedTable, error) {
	d, err := s.GetDeletedTable(ctx, id)
	if err != nil {
		return DeletedTable{}, err
	}
	if d.Protected() && !force {
		return DeletedTable{}, newErr(fault.Conflict, FieldProtected,
			"recently deleted table %q (namespace %q of bucket %q) is protected (%s=true), so it refuses purge; repeat with force (needs the manage privilege), or undrop it",
			d.Name, JoinNamespace(d.Namespace), d.Bucket, ProtectedProperty)
	}
	ok, err := s.purge(ctx, d, 0)
	if err != nil {
		return DeletedTable{}, err
	}
	if !ok {
		return DeletedTable{}, newErr(fault.Conflict, "table_id", "table %q is being purged already", d.Name)
	}
	return d, nil
}

// PurgeExpired purges up to max recently deleted tables whose hold has
// ended, oldest first, and returns those it purged. Replicas may all run
// it: each table is claimed in the database before its data is touched,
// so two never delete one table's data. A table whose purge fails (a
// location guard refusing, the store down) stays, and the error of the
// first such table is returned after the others were tried.
func (s *Store) PurgeExpired(ctx context.Context, max int) ([]DeletedTable, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT `+deletedColumns+` FROM deleted_tables
		WHERE purge_at <= ? AND claimed_until <= ? ORDER BY purge_at, id LIMIT ?`,
		micros(s.now()), micros(s.now()), max)
	if err != nil {
		return nil, dbErr("list expired tables", err)
	}
	var due []DeletedTable
	for rows.Next() {
		d, err := s.scanDeleted(rows)
		if err != nil {
			rows.Close()
			return nil, dbErr("list expired tables", err)
		}
		due = append(due, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, dbErr("list expired tables", err)
	}
	var done []DeletedTable
	var first error
	for _, d := range due {
		if ctx.Err() != nil {
			return done, ctx.Err()
		}
		ok, err := s.purge(ctx, d, purgeRetryAfter)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		if ok {
			done = append(done, d)
		}
	}
	return done, first
}

// PurgeDeletedBucket purges every recently deleted table of a recently
// deleted bucket, then the bucket; force passes protected tables.
func (s *Store) PurgeDeletedBucket(ctx context.Context, name string, force bool) ([]DeletedTable, error) {
	b, err := s.getBucketAny(ctx, s.ro, name)
	if err != nil {
		return nil, err
	}
	if b.DeletedAt.IsZero() {
		return nil, newErr(fault.Conflict, "bucket", "bucket %q is not deleted; purge its recently deleted tables one by one, or delete it first", name)
	}
	var done []DeletedTable
	for {
		page, _, err := s.ListDeletedTables(ctx, name, ListOptions{Limit: MaxPageSize})
		if fault.KindOf(err) == fault.NotFound {
			return done, nil // the purge of its last table removed the bucket
		}
		if err != nil {
			return done, err
		}
		if len(page) == 0 {
			break
		}
		for _, d := range page {
			if _, err := s.PurgeDeletedTable(ctx, d.ID, force); err != nil {
				return done, err
			}
			done = append(done, d)
		}
	}
	// A bucket deleted while empty of held tables is gone already; one
	// whose last table was purged above went with it.
	err = s.inTx(ctx, func(tx *persist.Tx) error { return s.finishDeletedBucket(ctx, tx, name) })
	return done, err
}

// purgeRetryAfter is how long a table whose scheduled purge failed waits
// before the sweep tries it again, so a table that keeps failing (a guard
// refusing its location) never holds up the tables due after it.
const purgeRetryAfter = 5 * time.Minute

// purge claims d, deletes its data (when its drop asked for that) and then
// its entry. ok is false when another purge holds it. After a failure the
// claim is kept for retryAfter (0: released at once).
func (s *Store) purge(ctx context.Context, d DeletedTable, retryAfter time.Duration) (ok bool, err error) {
	now := s.now()
	err = s.inTx(ctx, func(tx *persist.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE deleted_tables SET claimed_by = ?, claimed_until = ?
			WHERE id = ? AND (claimed_by = '' OR claimed_until <= ?)`, s.holder, micros(now.Add(purgeLease)), d.ID, micros(now))
		if err != nil {
			return dbErr("claim deleted table", err)
		}
		n, _ := res.RowsAffected()
		ok = n == 1
		return nil
	})
	if err != nil || !ok {
		return false, err
	}
	release := func() {
		until := int64(0)
		if retryAfter > 0 {
			until = micros(s.now().Add(retryAfter))
		}
		ctx := context.WithoutCancel(ctx)
		_ = s.inTx(ctx, func(tx *persist.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE deleted_tables SET claimed_by = '', claimed_until = ? WHERE id = ? AND claimed_by = ?`, until, d.ID, s.holder)
			return err
		})
	}
	if d.PurgeData {
		// The same guards as a drop at once: the location must be the
		// table's own, overlapping no live or recently deleted table.
		if err := s.checkDeletable(ctx, s.ro, d.Table, nil); err != nil {
			release()
			return false, err
		}
		if err := s.deleteData(ctx, d.Table); err != nil {
			release()
			return false, err
		}
	}
	err = s.inTx(ctx, func(tx *persist.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM deleted_tables WHERE id = ? AND claimed_by = ?`, d.ID, s.holder); err != nil {
			return dbErr("purge table", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM deleted_lance_versions WHERE table_id = ?`, d.ID); err != nil {
			return dbErr("purge table", err)
		}
		if err := s.forgetUnusedNamespaces(ctx, tx, d.Bucket); err != nil {
			return err
		}
		// The namespace directories a cascade could not remove while the
		// data was held go now, when empty and no longer the catalog's.
		for i := len(d.Namespace); i >= 1; i-- {
			name := JoinNamespace(d.Namespace[:i])
			if live, err := namespaceExists(ctx, tx, d.Bucket, name); err != nil || live {
				continue
			}
			_ = s.wh.Delete(ctx, s.namespaceDir(d.Bucket, name))
		}
		return s.finishDeletedBucket(ctx, tx, d.Bucket)
	})
	if err != nil {
		return false, err
	}
	s.tableChanged(d.ID)
	s.tableEvent(TableEvent{Kind: TableDropped, Table: d.Table, Purged: true, DataDeleted: d.PurgeData})
	return true, nil
}

// finishDeletedBucket removes a recently deleted bucket once it holds no
// recently deleted table.
func (s *Store) finishDeletedBucket(ctx context.Context, tx *persist.Tx, name string) error {
	b, err := s.getBucketAny(ctx, tx, name)
	if err != nil {
		if fault.KindOf(err) == fault.NotFound {
			return nil
		}
		return err
	}
	if b.DeletedAt.IsZero() {
		return nil
	}
	var held int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM deleted_tables WHERE bucket = ?`, name).Scan(&held); err != nil {
		return dbErr("count deleted tables", err)
	}
	if held > 0 {
		return nil
	}
	return s.removeBucketRow(ctx, tx, name)
}
