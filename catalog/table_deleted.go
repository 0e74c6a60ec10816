package catalog

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/warehouse"
	"github.com/google/uuid"
)

// Soft delete. A drop on any surface moves the table's entry to
// deleted_tables for its bucket's hold: the name is free at once, no
// listing of tables sees it (they read the tables table only, so a
// namespace full of recently deleted tables lists as fast as an empty
// one), and its data stays where it is until the hold ends or someone
// purges it. Undrop moves the entry back with its table id.

// Why a table was deleted, as the recently deleted list shows it.
const (
	ReasonDrop      = "drop"      // a table drop on any surface
	ReasonCascade   = "cascade"   // a namespace drop with cascade
	ReasonOverwrite = "overwrite" // a Lance CreateNamespace with mode overwrite
	ReasonBucket    = "bucket"    // a bucket delete with cascade
)

// DeletedTable is a recently deleted table: the entry as it was when it was
// dropped, and what its hold does.
type DeletedTable struct {
	Table
	DeletedAt time.Time
	// PurgeAt is when the hold ends; zero on a drop that deleted at once
	// (a hold of 0).
	PurgeAt time.Time
	// PurgeData: the hold's end deletes the data. false: it only forgets
	// the entry and keeps every file (an Iceberg drop without purge).
	PurgeData bool
	DeletedBy string // "apikey:k1", "user:admin", "cli"
	Forced    bool   // the drop overrode protection
	Reason    string // ReasonDrop, ReasonCascade, ReasonOverwrite, ReasonBucket
	DropID    string // shared by what one operation dropped
}

// Held reports whether the drop kept the table recently deleted (a hold
// longer than 0), so it can still be undropped.
func (d DeletedTable) Held() bool { return !d.PurgeAt.IsZero() }

// DropOptions say how a drop treats protection and the table's data.
type DropOptions struct {
	// Force passes protection. Surfaces set it only for a caller the
	// safety layer found may manage the table (safety.Force).
	Force bool
	// By names who drops, for the recently deleted list.
	By string
	// VersionToken, when not empty, must still be the table's token in
	// the drop's own transaction (see DropTableAtVersion).
	VersionToken string
	// KeepData: an Iceberg drop without purge. The entry goes (to recently
	// deleted for the hold, like any drop) and its files are never deleted.
	KeepData bool
}

// CascadeOptions say how a namespace drop or a bucket delete treats what it
// holds.
type CascadeOptions struct {
	// Cascade drops what is inside (tables go to recently deleted for the
	// hold); without it a non-empty namespace or bucket is fault.NotEmpty.
	Cascade bool
	Force   bool   // see DropOptions.Force
	By      string // see DropOptions.By
}

// deleteMeta is what one drop writes beside the entries it moves.
type deleteMeta struct {
	now     time.Time
	purgeAt time.Time
	by      string
	forced  bool
	reason  string
	dropID  string
}

func (s *Store) newDeleteMeta(hold time.Duration, by string, forced bool, reason string) deleteMeta {
	now := s.now().UTC()
	return deleteMeta{now: now, purgeAt: now.Add(hold), by: by, forced: forced, reason: reason, dropID: uuid.NewString()}
}

// softDelete moves one table's entry to deleted_tables (with its tags and
// its managed-versioning record) and removes it from tables. The data is
// not touched.
func (s *Store) softDelete(ctx context.Context, tx *persist.Tx, t Table, purgeData bool, m deleteMeta) error {
	var tags string
	if err := tx.QueryRowContext(ctx, `SELECT tags FROM tables WHERE id = ?`, t.ID).Scan(&tags); err != nil {
		return dbErr("read table tags", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO deleted_tables(`+tableColumns+`, tags,
		deleted_at, purge_at, purge_data, deleted_by, forced, reason, drop_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.Bucket, JoinNamespace(t.Namespace), t.Name, string(t.Format), t.Location, t.MetadataLocation,
		t.VersionToken, string(t.State), encodeMap(t.Properties), micros(t.CreatedAt), micros(t.ModifiedAt), tags,
		micros(m.now), micros(m.purgeAt), boolInt(purgeData), m.by, boolInt(m.forced), m.reason, m.dropID); err != nil {
		return dbErr("record the deleted table", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO deleted_lance_versions(table_id, version, manifest_path, manifest_size,
		e_tag, created_at, key_id, principal, finalized)
		SELECT table_id, version, manifest_path, manifest_size, e_tag, created_at, key_id, principal, finalized
		FROM lance_versions WHERE table_id = ?`, t.ID); err != nil {
		return dbErr("keep the version record", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM tables WHERE id = ?`, t.ID); err != nil {
		return dbErr("delete table", err)
	}
	return nil
}

// removeNow is a drop with a hold of 0, as every drop was before holds:
// the data goes (unless keepData), then the entry.
func (s *Store) removeNow(ctx context.Context, tx *persist.Tx, t Table, keepData bool) error {
	if !keepData {
		// Data first, inside the transaction: if deleting fails the entry
		// stays and the caller can retry.
		if err := s.deleteData(ctx, t); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM tables WHERE id = ?`, t.ID); err != nil {
		return dbErr("delete table", err)
	}
	return nil
}

const deletedColumns = tableColumns + `, deleted_at, purge_at, purge_data, deleted_by, forced, reason, drop_id`

func (s *Store) scanDeleted(sc interface{ Scan(...any) error }) (DeletedTable, error) {
	var d DeletedTable
	var ns, format, state, props string
	var created, modified, deleted, purge, purgeData, forced int64
	if err := sc.Scan(&d.ID, &d.Bucket, &ns, &d.Name, &format, &d.Location, &d.MetadataLocation,
		&d.VersionToken, &state, &props, &created, &modified,
		&deleted, &purge, &purgeData, &d.DeletedBy, &forced, &d.Reason, &d.DropID); err != nil {
		return DeletedTable{}, err
	}
	d.Namespace = SplitNamespace(ns)
	d.Format = Format(format)
	d.State = LanceState(state)
	d.Properties = decodeMap(props)
	d.CreatedAt = fromMicros(created)
	d.ModifiedAt = fromMicros(modified)
	d.ARN = s.tableARN(d.Bucket, d.ID)
	d.DeletedAt = fromMicros(deleted)
	d.PurgeAt = fromMicros(purge)
	d.PurgeData = purgeData != 0
	d.Forced = forced != 0
	return d, nil
}

func deletedNotFound(id string) error {
	return newErr(fault.NotFound, "table_id",
		"no recently deleted table has id %q: it was undropped, purged, or its hold ended; list the bucket's recently deleted tables to see what is held", id)
}

// GetDeletedTable returns a recently deleted table by its table id.
func (s *Store) GetDeletedTable(ctx context.Context, id string) (DeletedTable, error) {
	return s.getDeleted(ctx, s.ro, id)
}

func (s *Store) getDeleted(ctx context.Context, q querier, id string) (DeletedTable, error) {
	if _, err := uuid.Parse(id); err != nil {
		return DeletedTable{}, deletedNotFound(id)
	}
	d, err := s.scanDeleted(q.QueryRowContext(ctx, `SELECT `+deletedColumns+` FROM deleted_tables WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return DeletedTable{}, deletedNotFound(id)
	}
	if err != nil {
		return DeletedTable{}, dbErr("get deleted table", err)
	}
	return d, nil
}

// FindDeletedTable returns the most recently deleted table that had the
// name ref (fault.NotFound when none is held).
func (s *Store) FindDeletedTable(ctx context.Context, ref TableRef) (DeletedTable, error) {
	if err := validateRef(ref); err != nil {
		return DeletedTable{}, err
	}
	d, err := s.scanDeleted(s.ro.QueryRowContext(ctx, `SELECT `+deletedColumns+` FROM deleted_tables
		WHERE bucket = ? AND namespace = ? AND name = ? ORDER BY deleted_at DESC, id LIMIT 1`,
		ref.Bucket, JoinNamespace(ref.Namespace), ref.Name))
	if errors.Is(err, sql.ErrNoRows) {
		return DeletedTable{}, newErr(fault.NotFound, "table",
			"no recently deleted table was called %q in namespace %q of bucket %q", ref.Name, JoinNamespace(ref.Namespace), ref.Bucket)
	}
	if err != nil {
		return DeletedTable{}, dbErr("find deleted table", err)
	}
	return d, nil
}

// ListDeletedTables lists a bucket's recently deleted tables, most recently
// deleted first. The bucket may itself be recently deleted. next is "" on
// the last page, else the After of the next one.
func (s *Store) ListDeletedTables(ctx context.Context, bucket string, opt ListOptions) (items []DeletedTable, next string, err error) {
	if err := validateBucket("bucket", bucket); err != nil {
		return nil, "", err
	}
	if _, err := s.getBucketAny(ctx, s.ro, bucket); err != nil {
		return nil, "", err
	}
	limit := pageLimit(opt.Limit)
	where, args := `bucket = ?`, []any{bucket}
	if opt.After != "" {
		at, id, ok := strings.Cut(opt.After, ".")
		us, perr := strconv.ParseInt(at, 10, 64)
		if !ok || perr != nil {
			return nil, "", Invalid("after", "after must be the next value a previous page of recently deleted tables gave")
		}
		where += ` AND (deleted_at < ? OR (deleted_at = ? AND id > ?))`
		args = append(args, us, us, id)
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT `+deletedColumns+` FROM deleted_tables WHERE `+where+
		` ORDER BY deleted_at DESC, id LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, "", dbErr("list deleted tables", err)
	}
	defer rows.Close()
	items = []DeletedTable{}
	for rows.Next() {
		d, err := s.scanDeleted(rows)
		if err != nil {
			return nil, "", dbErr("list deleted tables", err)
		}
		items = append(items, d)
	}
	if err := rows.Err(); err != nil {
		return nil, "", dbErr("list deleted tables", err)
	}
	if len(items) > limit {
		items = items[:limit]
		last := items[limit-1]
		next = strconv.FormatInt(micros(last.DeletedAt), 10) + "." + last.ID
	}
	return items, next, nil
}

// CountDeletedTables counts a bucket's recently deleted tables.
func (s *Store) CountDeletedTables(ctx context.Context, bucket string) (int, error) {
	var n int
	if err := s.ro.QueryRowContext(ctx, `SELECT COUNT(*) FROM deleted_tables WHERE bucket = ?`, bucket).Scan(&n); err != nil {
		return 0, dbErr("count deleted tables", err)
	}
	return n, nil
}

// CountDeletedTablesOfDeletedBuckets counts the recently deleted tables of
// each recently deleted bucket, in one statement (the buckets page lists
// them all).
func (s *Store) CountDeletedTablesOfDeletedBuckets(ctx context.Context) (map[string]int, error) {
	return namedNumbers[int](ctx, s.ro, "count deleted tables", `SELECT d.bucket, COUNT(*) FROM buckets b JOIN deleted_tables d ON d.bucket = b.name
		WHERE b.deleted_at <> 0 GROUP BY d.bucket`)
}

// deletedLocationUsers lists the recently deleted tables whose data
// overlaps loc (the same, inside it or around it), except exceptID: their
// data is still there, so no new table may take it and no purge may
// delete around it.
func (s *Store) deletedLocationUsers(ctx context.Context, q querier, loc warehouse.Location, exceptID string) ([]DeletedTable, error) {
	where, args := overlapWhere(loc, exceptID)
	rows, err := q.QueryContext(ctx, `SELECT `+deletedColumns+` FROM deleted_tables WHERE `+where, args...)
	if err != nil {
		return nil, dbErr("check location", err)
	}
	defer rows.Close()
	var out []DeletedTable
	for rows.Next() {
		d, err := s.scanDeleted(rows)
		if err != nil {
			return nil, dbErr("check location", err)
		}
		if other, err := warehouse.Parse(d.Location); err == nil && other.Overlaps(loc) {
			out = append(out, d)
		}
	}
	return out, rows.Err()
}

// heldLocationErr refuses a location a recently deleted table's data is
// in, pointing at Undrop: registering or creating over it would make two
// entries of one dataset.
func heldLocationErr(loc warehouse.Location, d DeletedTable) error {
	return newErr(fault.Conflict, FieldRecentlyDeleted,
		"location %s holds the data of table %q (namespace %q of bucket %q), dropped at %s and recently deleted until %s; undrop it (floe table undrop, the console's Recently deleted list, or the catalog's undrop route) instead of registering its data again, or purge it first",
		loc, d.Name, JoinNamespace(d.Namespace), d.Bucket, d.DeletedAt.Format(time.RFC3339), d.PurgeAt.Format(time.RFC3339))
}

// recordDeletedNamespaces keeps the rows of namespaces about to be removed
// while recently deleted tables name them, so an undrop can bring them back
// with their properties.
func (s *Store) recordDeletedNamespaces(ctx context.Context, tx *persist.Tx, bucket string, nss []Namespace, now time.Time) error {
	for _, n := range nss {
		parent := JoinNamespace(n.Levels[:len(n.Levels)-1])
		if _, err := tx.ExecContext(ctx, `INSERT INTO deleted_namespaces(bucket, name, parent, properties, created_at, deleted_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(bucket, name, deleted_at) DO NOTHING`,
			bucket, n.Name(), parent, encodeMap(n.Properties), micros(n.CreatedAt), micros(now)); err != nil {
			return dbErr("record deleted namespace", err)
		}
	}
	return s.forgetUnusedNamespaces(ctx, tx, bucket)
}

// forgetUnusedNamespaces drops the kept namespace rows of a bucket that no
// recently deleted table lies in or under.
func (s *Store) forgetUnusedNamespaces(ctx context.Context, tx *persist.Tx, bucket string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM deleted_namespaces WHERE bucket = ? AND NOT EXISTS (
		SELECT 1 FROM deleted_tables d WHERE d.bucket = deleted_namespaces.bucket
		AND (d.namespace = deleted_namespaces.name
			OR (d.namespace >= (deleted_namespaces.name || '.') AND d.namespace < (deleted_namespaces.name || '/'))))`,
		bucket); err != nil {
		return dbErr("forget deleted namespaces", err)
	}
	return nil
}

// getBucketAny returns a bucket whether it is live or recently deleted.
func (s *Store) getBucketAny(ctx context.Context, q querier, name string) (Bucket, error) {
	b, err := scanBucket(q.QueryRowContext(ctx, `SELECT `+bucketColumns+` FROM buckets b WHERE b.name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Bucket{}, bucketNotFound(name)
	}
	if err != nil {
		return Bucket{}, dbErr("get bucket", err)
	}
	return b, nil
}

// ListDeletedBuckets lists the buckets deleted while they held recently
// deleted tables, by name.
func (s *Store) ListDeletedBuckets(ctx context.Context) ([]Bucket, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT `+bucketColumns+` FROM buckets b WHERE b.deleted_at <> 0 ORDER BY b.name LIMIT ?`, MaxPageSize)
	if err != nil {
		return nil, dbErr("list deleted buckets", err)
	}
	defer rows.Close()
	out := []Bucket{}
	for rows.Next() {
		b, err := scanBucket(rows)
		if err != nil {
			return nil, dbErr("list deleted buckets", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// CheckNotRecentlyDeleted refuses (FieldRecentlyDeleted, pointing at
// undrop) a location that lies at, inside or around a recently deleted
// table's data: Iceberg's register of a dropped table's metadata.
func (s *Store) CheckNotRecentlyDeleted(ctx context.Context, location string) error {
	loc, err := warehouse.Parse(location)
	if err != nil {
		return Invalid("location", err.Error())
	}
	held, err := s.deletedLocationUsers(ctx, s.ro, loc, "")
	if err != nil || len(held) == 0 {
		return err
	}
	return heldLocationErr(loc, held[0])
}
