package catalog

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// The version records of managed Lance tables (Bucket.ManagedVersioning).
// The catalog decides which commit gets a version number; lancecommit runs
// the rest of the protocol (staging manifest, final name) around these
// calls. A version is reserved unfinalized, then finalized once its
// manifest is at its final name; readers see finalized versions only.

// LanceVersion is one recorded version of a Lance table.
type LanceVersion struct {
	TableID      string
	Version      uint64
	ManifestPath string // canonical location of the version's final manifest
	ManifestSize int64
	ETag         string
	CreatedAt    time.Time
	KeyID        string // the committing API key's id; "" when imported from _versions/
	Principal    string // the committing key's name (or "anonymous")
	Finalized    bool
}

// LanceReservation is one version a commit wants, with what _versions/
// held for its table when the catalog had no record of it yet (Imported,
// recorded as finalized in the same transaction), so a table managed after
// it was written keeps its history.
type LanceReservation struct {
	Version  LanceVersion
	Imported []LanceVersion
}

// maxLanceBatch bounds one batch of reservations: a multi-table commit
// names a handful of tables, never thousands.
const maxLanceBatch = 100

// maxLanceImport bounds the versions imported for one table at once: a
// long-lived dataset keeps thousands of manifests, every one a row.
const maxLanceImport = 100_000

const lanceVersionColumns = `table_id, version, manifest_path, manifest_size, e_tag, created_at, key_id, principal, finalized`

func scanLanceVersion(sc interface{ Scan(...any) error }) (LanceVersion, error) {
	var v LanceVersion
	var version, created, finalized int64
	if err := sc.Scan(&v.TableID, &version, &v.ManifestPath, &v.ManifestSize, &v.ETag, &created, &v.KeyID, &v.Principal, &finalized); err != nil {
		return LanceVersion{}, err
	}
	v.Version = uint64(version)
	v.CreatedAt = fromMicros(created)
	v.Finalized = finalized != 0
	return v, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SetManagedVersioning turns managed versioning of a bucket's Lance tables
// on or off. On a warehouse whose store ignores conditional writes
// (warehouse.Warehouse.ConditionalWrites false) it is never turned off. Turning it off keeps the records (they are correct: every
// recorded manifest is at its final name); clients then commit straight to
// storage again and DescribeTable answers managed_versioning false.
func (s *Store) SetManagedVersioning(ctx context.Context, bucket string, on bool) error {
	if err := validateBucket("bucket", bucket); err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *persist.Tx) error {
		b, err := s.getBucket(ctx, tx, bucket)
		if err != nil {
			return err
		}
		if !on && b.Format != FormatIceberg && !s.wh.ConditionalWrites() {
			return Invalid("managed_versioning", "bucket "+bucket+" stays managed: the warehouse's S3 store does not honour If-None-Match (--s3-conditional-put absent), "+
				"so without floe deciding each commit two Lance writers could replace each other's versions")
		}
		if on && b.Format == FormatIceberg {
			return Invalid("managed_versioning", "bucket "+bucket+" is declared for Iceberg; managed versioning coordinates Lance commits")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE buckets SET lance_managed_versioning = ? WHERE name = ?`, boolInt(on), bucket); err != nil {
			return dbErr("set managed versioning", err)
		}
		// Touch one of the bucket's tables so the tables trigger tells
		// every replica, in this transaction, to drop what it cached (the
		// setting is cached beside the table entries); a bucket without
		// tables has nothing cached that a describe could use.
		if _, err := tx.ExecContext(ctx, `UPDATE tables SET modified_at = modified_at
			WHERE id = (SELECT id FROM tables WHERE bucket = ? ORDER BY id LIMIT 1)`, bucket); err != nil {
			return dbErr("set managed versioning", err)
		}
		return nil
	})
}

// ManagedVersioning reports whether the bucket's Lance tables commit
// through floe (Bucket.ManagedVersioning). Every DescribeTable asks, so on
// PostgreSQL with a bus the answer is cached beside the table entries and
// dropped when the buckets change (see tableCache).
func (s *Store) ManagedVersioning(ctx context.Context, bucket string) (bool, error) {
	now := time.Now()
	if on, ok := s.tables.getFlag(ctx, bucket, now); ok {
		return on, nil
	}
	st, g, cacheable := s.tables.stamped(ctx)
	var on int64
	err := s.ro.QueryRowContext(ctx, `SELECT lance_managed_versioning FROM buckets WHERE name = ?`, bucket).Scan(&on)
	if errors.Is(err, sql.ErrNoRows) {
		return false, bucketNotFound(bucket)
	}
	if err != nil {
		return false, dbErr("get bucket", err)
	}
	if cacheable {
		s.tables.putFlag(bucket, on != 0, st, g, now)
	}
	return on != 0, nil
}

// ReserveLanceVersions records the versions in one transaction, all or
// none. Each must be the next version of its table (the latest recorded,
// finalized or not, plus one): an existing number is fault.Conflict (Field
// "version"), the spec's put-if-not-exists refusal, and a gap is
// fault.Invalid. Two writers racing for one number (in one process or on two
// replicas) meet at the primary key: the loser's insert fails and it gets
// fault.Conflict too. Reserved versions are unfinalized; see
// FinalizeLanceVersions.
func (s *Store) ReserveLanceVersions(ctx context.Context, batch []LanceReservation) error {
	if len(batch) == 0 {
		return Invalid("entries", "no versions to create")
	}
	if len(batch) > maxLanceBatch {
		return Invalid("entries", "at most 100 versions are created in one request")
	}
	sorted := slices.Clone(batch)
	slices.SortStableFunc(sorted, func(a, b LanceReservation) int {
		return cmp.Or(cmp.Compare(a.Version.TableID, b.Version.TableID), cmp.Compare(a.Version.Version, b.Version.Version))
	})
	return s.inTx(ctx, func(tx *persist.Tx) error {
		latest := map[string]uint64{}
		for _, r := range sorted {
			v := r.Version
			if v.Version == 0 {
				return Invalid("version", "versions start at 1")
			}
			t, err := s.scanTable(tx.QueryRowContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE id = ?`, v.TableID))
			if errors.Is(err, sql.ErrNoRows) || (err == nil && t.Format != FormatLance) {
				return newErr(fault.NotFound, "table_id", "Lance table id %q does not exist; the table may have been dropped", v.TableID)
			}
			if err != nil {
				return dbErr("get table", err)
			}
			if len(r.Imported) > maxLanceImport {
				return Invalid("version", "the table has more than 100000 manifests in _versions/; clean up old versions before managing it")
			}
			for _, im := range r.Imported {
				if _, err := tx.ExecContext(ctx, `INSERT INTO lance_versions(`+lanceVersionColumns+`)
					VALUES (?, ?, ?, ?, ?, ?, '', '', 1) ON CONFLICT (table_id, version) DO NOTHING`,
					v.TableID, int64(im.Version), im.ManifestPath, im.ManifestSize, im.ETag, micros(im.CreatedAt)); err != nil {
					return dbErr("import version", err)
				}
			}
			last, ok := latest[v.TableID]
			if !ok {
				var m sql.NullInt64
				if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM lance_versions WHERE table_id = ?`, v.TableID).Scan(&m); err != nil {
					return dbErr("latest version", err)
				}
				last = uint64(m.Int64)
			}
			switch {
			case v.Version <= last:
				return newErr(fault.Conflict, "version", "version %d of table %q exists already (the latest is %d); load the latest version and commit on top of it", v.Version, t.Name, last)
			case v.Version > last+1:
				return Invalid("version", "table "+t.Name+"'s next version is "+itoa(last+1)+", not "+itoa(v.Version)+"; versions are committed one after another")
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO lance_versions(`+lanceVersionColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)`,
				v.TableID, int64(v.Version), v.ManifestPath, v.ManifestSize, v.ETag, micros(s.now()), v.KeyID, v.Principal); err != nil {
				if s.isUniqueViolation(err) {
					return newErr(fault.Conflict, "version", "version %d of table %q was just committed by another writer; load the latest version and commit on top of it", v.Version, t.Name)
				}
				return dbErr("reserve version", err)
			}
			latest[v.TableID] = v.Version
		}
		return nil
	})
}

// FinalizeLanceVersions marks reserved versions as committed, with the size
// and entity tag of their final manifests, in one transaction, and tells
// OnTableChange of each table. A version no longer reserved (released by
// SettleLanceVersions because its writer seemed gone) is fault.Conflict and
// nothing is finalized.
func (s *Store) FinalizeLanceVersions(ctx context.Context, vs []LanceVersion) error {
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		for _, v := range vs {
			res, err := tx.ExecContext(ctx, `UPDATE lance_versions SET finalized = 1, manifest_path = ?, manifest_size = ?, e_tag = ?
				WHERE table_id = ? AND version = ? AND finalized = 0`,
				v.ManifestPath, v.ManifestSize, v.ETag, v.TableID, int64(v.Version))
			if err != nil {
				return dbErr("finalize version", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return newErr(fault.Conflict, "version", "version %d was released before its commit finished (the commit took too long); load the latest version and commit again", v.Version)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, v := range vs {
		if !seen[v.TableID] {
			seen[v.TableID] = true
			s.tableChanged(v.TableID)
		}
	}
	if s.onEvent.Load() != nil {
		for _, v := range vs {
			// the entry is read after the commit only when someone listens;
			// a table dropped meanwhile has no event to tell
			if t, err := s.GetTableByID(ctx, v.TableID); err == nil {
				s.tableEvent(TableEvent{Kind: TableCommitted, Table: t, Version: v.Version})
			}
		}
	}
	return nil
}

// ReleaseLanceVersions forgets reserved (unfinalized) versions whose commit
// failed, so the numbers are free again. Finalized versions are kept.
func (s *Store) ReleaseLanceVersions(ctx context.Context, vs []LanceVersion) error {
	return s.inTx(ctx, func(tx *persist.Tx) error {
		for _, v := range vs {
			if _, err := tx.ExecContext(ctx, `DELETE FROM lance_versions WHERE table_id = ? AND version = ? AND finalized = 0`,
				v.TableID, int64(v.Version)); err != nil {
				return dbErr("release version", err)
			}
		}
		return nil
	})
}

// StaleLanceVersions lists a table's versions still reserved but not
// finalized since before cutoff: their writer died between the two steps.
func (s *Store) StaleLanceVersions(ctx context.Context, tableID string, cutoff time.Time) ([]LanceVersion, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT `+lanceVersionColumns+` FROM lance_versions
		WHERE table_id = ? AND finalized = 0 AND created_at < ? ORDER BY version`, tableID, micros(cutoff))
	if err != nil {
		return nil, dbErr("list reserved versions", err)
	}
	return collectLanceVersions(rows)
}

// HasLanceVersions reports whether the catalog holds any record of the
// table's versions, finalized or reserved.
func (s *Store) HasLanceVersions(ctx context.Context, tableID string) (bool, error) {
	var n int
	err := s.ro.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM lance_versions WHERE table_id = ? LIMIT 1) x`, tableID).Scan(&n)
	if err != nil {
		return false, dbErr("count versions", err)
	}
	return n > 0, nil
}

// LanceVersionQuery pages a table's finalized versions by number: After
// (exclusive, 0 = from the start), Descending, and Limit (1..MaxPageSize,
// else DefaultPageSize).
type LanceVersionQuery struct {
	After      uint64
	Descending bool
	Limit      int
}

// LanceVersions lists a table's finalized versions.
func (s *Store) LanceVersions(ctx context.Context, tableID string, q LanceVersionQuery) ([]LanceVersion, error) {
	limit := pageLimit(q.Limit)
	query := `SELECT ` + lanceVersionColumns + ` FROM lance_versions WHERE table_id = ? AND finalized = 1`
	args := []any{tableID}
	switch {
	case q.Descending && q.After > 0:
		query += ` AND version < ?`
		args = append(args, int64(q.After))
	case q.After > 0:
		query += ` AND version > ?`
		args = append(args, int64(q.After))
	}
	if q.Descending {
		query += ` ORDER BY version DESC LIMIT ?`
	} else {
		query += ` ORDER BY version LIMIT ?`
	}
	rows, err := s.ro.QueryContext(ctx, query, append(args, limit)...)
	if err != nil {
		return nil, dbErr("list versions", err)
	}
	return collectLanceVersions(rows)
}

// LanceVersionAt returns one finalized version, or with v 0 the latest;
// ok is false when the catalog has no such record.
func (s *Store) LanceVersionAt(ctx context.Context, tableID string, v uint64) (LanceVersion, bool, error) {
	var row *sql.Row
	if v == 0 {
		row = s.ro.QueryRowContext(ctx, `SELECT `+lanceVersionColumns+` FROM lance_versions
			WHERE table_id = ? AND finalized = 1 ORDER BY version DESC LIMIT 1`, tableID)
	} else {
		row = s.ro.QueryRowContext(ctx, `SELECT `+lanceVersionColumns+` FROM lance_versions
			WHERE table_id = ? AND version = ? AND finalized = 1`, tableID, int64(v))
	}
	out, err := scanLanceVersion(row)
	if errors.Is(err, sql.ErrNoRows) {
		return LanceVersion{}, false, nil
	}
	if err != nil {
		return LanceVersion{}, false, dbErr("get version", err)
	}
	return out, true, nil
}

// LanceVersionRange is the spec's VersionRange: Start inclusive, End
// exclusive; End 0 means up to and including the latest.
type LanceVersionRange struct {
	Start, End uint64
}

// DeleteLanceVersions forgets the finalized records in the ranges (the
// manifests themselves are the client's: BatchDeleteTableVersions deletes
// records, not data) and answers how many went. The latest version's
// record is kept unless every record goes, so the catalog never answers an
// older version as the latest.
func (s *Store) DeleteLanceVersions(ctx context.Context, tableID string, ranges []LanceVersionRange) (int64, error) {
	var deleted int64
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var m sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM lance_versions WHERE table_id = ? AND finalized = 1`, tableID).Scan(&m); err != nil {
			return dbErr("latest version", err)
		}
		latest := uint64(m.Int64)
		for _, r := range ranges {
			all := r.Start <= 1 && r.End == 0
			if !all && latest > 0 && r.Start <= latest && (r.End == 0 || r.End > latest) {
				return Invalid("ranges", "the range ["+itoa(r.Start)+", "+endText(r.End)+") includes version "+itoa(latest)+", the table's latest; its record stays while older ones go (delete every record with start 0 and end -1)")
			}
			q := `DELETE FROM lance_versions WHERE table_id = ? AND finalized = 1 AND version >= ?`
			args := []any{tableID, int64(r.Start)}
			if r.End > 0 {
				q += ` AND version < ?`
				args = append(args, int64(r.End))
			}
			res, err := tx.ExecContext(ctx, q, args...)
			if err != nil {
				return dbErr("delete versions", err)
			}
			n, _ := res.RowsAffected()
			deleted += n
		}
		return nil
	})
	return deleted, err
}

func endText(end uint64) string {
	if end == 0 {
		return "latest"
	}
	return itoa(end)
}

func collectLanceVersions(rows *sql.Rows) ([]LanceVersion, error) {
	defer rows.Close()
	out := []LanceVersion{}
	for rows.Next() {
		v, err := scanLanceVersion(rows)
		if err != nil {
			return nil, dbErr("read versions", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("read versions", err)
	}
	return out, nil
}
