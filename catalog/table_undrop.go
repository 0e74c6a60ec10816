package catalog

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/warehouse"
)

// UndropTable brings a recently deleted table back, with its table id, its
// data exactly where it was, its properties (protection included), tags
// and managed-versioning record. to names it: a zero Name keeps the old
// name, a nil Namespace the old namespace (the bucket never changes). A
// name that is taken is fault.AlreadyExists (undrop under another name);
// a namespace that is gone is brought back with the properties it had when
// it was dropped (or created empty, if the catalog kept none), level by
// level.
func (s *Store) UndropTable(ctx context.Context, id string, to TableRef) (Table, error) {
	var t Table
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		d, err := s.getDeleted(ctx, tx, id)
		if err != nil {
			return err
		}
		t, err = s.undrop(ctx, tx, d, to)
		if err != nil {
			return err
		}
		return s.forgetUnusedNamespaces(ctx, tx, d.Bucket)
	})
	if err != nil {
		return Table{}, err
	}
	s.tableChanged(t.ID)
	s.tableEvent(TableEvent{Kind: TableCreated, Table: t})
	return t, nil
}

func (s *Store) undrop(ctx context.Context, tx *persist.Tx, d DeletedTable, to TableRef) (Table, error) {
	now := s.now().UTC()
	if claimed, err := s.purgeClaimed(ctx, tx, d.ID, now); err != nil {
		return Table{}, err
	} else if claimed {
		return Table{}, newErr(fault.Conflict, "table_id", "table %q is being purged right now; its data may already be partly gone, so it cannot be undropped", d.Name)
	}
	b, err := s.getBucketAny(ctx, tx, d.Bucket)
	if err != nil {
		return Table{}, err
	}
	if !b.DeletedAt.IsZero() {
		return Table{}, newErr(fault.Conflict, "bucket",
			"bucket %q was deleted and is itself recently deleted; undrop the bucket first (floe bucket undrop %s, or the console's Recently deleted buckets)", d.Bucket, d.Bucket)
	}
	ref := TableRef{Bucket: d.Bucket, Namespace: d.Namespace, Name: d.Name}
	if to.Name != "" {
		ref.Name = to.Name
	}
	if to.Namespace != nil {
		ref.Namespace = to.Namespace
	}
	if to.Bucket != "" && to.Bucket != d.Bucket {
		return Table{}, Invalid("bucket", "a table is undropped into the bucket it was dropped from")
	}
	if err := validateRef(ref); err != nil {
		return Table{}, err
	}
	if err := checkBucketAccepts(b, d.Format); err != nil {
		return Table{}, err
	}
	if err := s.restoreNamespaces(ctx, tx, d.Bucket, ref.Namespace, now); err != nil {
		return Table{}, err
	}
	if _, taken, err := s.findTable(ctx, tx, ref); err != nil {
		return Table{}, err
	} else if taken {
		return Table{}, newErr(fault.AlreadyExists, "name",
			"table %q already exists in namespace %q of bucket %q (a new table took the name after the drop); undrop under another name",
			ref.Name, JoinNamespace(ref.Namespace), ref.Bucket)
	}
	if err := nameFreeOfViews(ctx, tx, ref); err != nil {
		return Table{}, err
	}
	loc, err := warehouse.Parse(d.Location)
	if err != nil {
		return Table{}, Invalid("location", err.Error())
	}
	if users, err := s.locationUsers(ctx, tx, loc, d.ID); err != nil {
		return Table{}, err
	} else if len(users) > 0 {
		u := users[0]
		return Table{}, newErr(fault.Conflict, "location",
			"table %q in namespace %q now keeps data at or around %s, where the dropped table's data is; drop or repoint it first", u.Name, JoinNamespace(u.Namespace), d.Location)
	}
	t := d.Table
	t.Namespace = append([]string(nil), ref.Namespace...)
	t.Name = ref.Name
	t.VersionToken = newVersionToken()
	t.ModifiedAt = now
	var tags string
	if err := tx.QueryRowContext(ctx, `SELECT tags FROM deleted_tables WHERE id = ?`, d.ID).Scan(&tags); err != nil {
		return Table{}, dbErr("read deleted table", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO tables(`+tableColumns+`, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.Bucket, JoinNamespace(t.Namespace), t.Name, string(t.Format), t.Location, t.MetadataLocation,
		t.VersionToken, string(t.State), encodeMap(t.Properties), micros(t.CreatedAt), micros(t.ModifiedAt), tags); err != nil {
		if s.isUniqueViolation(err) {
			return Table{}, newErr(fault.AlreadyExists, "name", "table %q already exists; undrop under another name", t.Name)
		}
		return Table{}, dbErr("undrop table", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO lance_versions(table_id, version, manifest_path, manifest_size,
		e_tag, created_at, key_id, principal, finalized)
		SELECT table_id, version, manifest_path, manifest_size, e_tag, created_at, key_id, principal, finalized
		FROM deleted_lance_versions WHERE table_id = ?`, d.ID); err != nil {
		return Table{}, dbErr("restore the version record", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM deleted_lance_versions WHERE table_id = ?`, d.ID); err != nil {
		return Table{}, dbErr("restore the version record", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM deleted_tables WHERE id = ?`, d.ID); err != nil {
		return Table{}, dbErr("undrop table", err)
	}
	return t, nil
}

// purgeClaimed reports whether a purge holds the deleted table right now.
func (s *Store) purgeClaimed(ctx context.Context, q querier, id string, now time.Time) (bool, error) {
	var until int64
	if err := q.QueryRowContext(ctx, `SELECT CASE WHEN claimed_by = '' THEN 0 ELSE claimed_until END FROM deleted_tables WHERE id = ?`, id).Scan(&until); err != nil {
		return false, dbErr("read deleted table", err)
	}
	return until > micros(now), nil
}

// restoreNamespaces makes sure every level of ns exists in bucket, bringing
// back the rows a drop kept (deleted_namespaces, the latest of each name)
// and creating the others empty, with their directories.
func (s *Store) restoreNamespaces(ctx context.Context, tx *persist.Tx, bucket string, levels []string, now time.Time) error {
	for i := 1; i <= len(levels); i++ {
		name := JoinNamespace(levels[:i])
		ok, err := namespaceExists(ctx, tx, bucket, name)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		props, created := "{}", now
		var kept int64
		err = tx.QueryRowContext(ctx, `SELECT properties, created_at FROM deleted_namespaces
			WHERE bucket = ? AND name = ? ORDER BY deleted_at DESC LIMIT 1`, bucket, name).Scan(&props, &kept)
		if err == nil {
			created = fromMicros(kept)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return dbErr("read deleted namespace", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO namespaces(bucket, name, parent, properties, created_at) VALUES (?, ?, ?, ?, ?)`,
			bucket, name, JoinNamespace(levels[:i-1]), props, micros(created)); err != nil {
			return dbErr("restore namespace", err)
		}
		if err := s.wh.MkdirAll(ctx, s.namespaceDir(bucket, name)); err != nil {
			return storageErr("create namespace directory", err)
		}
	}
	return nil
}

// UndropBucket brings back a recently deleted bucket and every table its
// delete moved to recently deleted (tables dropped before it stay in its
// Recently deleted list, to undrop one by one).
func (s *Store) UndropBucket(ctx context.Context, name string) (Bucket, []Table, error) {
	if err := validateBucket("bucket", name); err != nil {
		return Bucket{}, nil, err
	}
	var b Bucket
	var back []Table
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		if b, err = s.getBucketAny(ctx, tx, name); err != nil {
			return err
		}
		if b.DeletedAt.IsZero() {
			return newErr(fault.Conflict, "bucket", "bucket %q is not deleted; undrop its tables from its Recently deleted list", name)
		}
		var dropID string
		if err := tx.QueryRowContext(ctx, `SELECT deleted_drop_id FROM buckets WHERE name = ?`, name).Scan(&dropID); err != nil {
			return dbErr("read bucket", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE buckets SET deleted_at = 0, deleted_drop_id = '' WHERE name = ?`, name); err != nil {
			return dbErr("undrop bucket", err)
		}
		b.DeletedAt = time.Time{}
		if err := s.wh.MkdirAll(ctx, s.BucketRoot(name)); err != nil {
			return storageErr("create bucket directory", err)
		}
		var ids []string
		rows, err := tx.QueryContext(ctx, `SELECT id FROM deleted_tables WHERE bucket = ? AND drop_id = ? ORDER BY namespace, name`, name, dropID)
		if err != nil {
			return dbErr("list deleted tables", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return dbErr("list deleted tables", err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return dbErr("list deleted tables", err)
		}
		for _, id := range ids {
			d, err := s.getDeleted(ctx, tx, id)
			if err != nil {
				return err
			}
			t, err := s.undrop(ctx, tx, d, TableRef{})
			if err != nil {
				return err
			}
			back = append(back, t)
		}
		return s.forgetUnusedNamespaces(ctx, tx, name)
	})
	if err != nil {
		return Bucket{}, nil, err
	}
	b, err = s.GetBucket(ctx, name)
	if err != nil {
		return Bucket{}, nil, err
	}
	for _, t := range back {
		s.tableChanged(t.ID)
		s.tableEvent(TableEvent{Kind: TableCreated, Table: t})
	}
	return b, back, nil
}
