package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// maxBucketTags bounds the tags on one bucket, as S3 Tables does, so a
// single request cannot store an unbounded JSON blob.
const maxBucketTags = 50

func (s *Store) bucketARN(name string) string {
	return "arn:floe:s3tables:" + s.opts.Region + ":" + s.opts.Account + ":bucket/" + name // every listed row has one: no fmt
}

// CreateBucket creates a bucket and its warehouse directory.
// fault.AlreadyExists if the name is taken (whatever the format).
func (s *Store) CreateBucket(ctx context.Context, in CreateBucketInput) (Bucket, error) {
	if err := ValidateBucketName(in.Name); err != nil {
		return Bucket{}, err
	}
	if in.Format != FormatUnset && in.Format != FormatLance && in.Format != FormatIceberg {
		return Bucket{}, Invalid("format", "format must be LANCE, ICEBERG or unset")
	}
	if in.ManagedVersioning && in.Format == FormatIceberg {
		return Bucket{}, Invalid("managed_versioning", "managed versioning coordinates Lance commits; an ICEBERG bucket's commits already go through the Iceberg REST catalog")
	}
	if in.Format != FormatIceberg && !s.wh.ConditionalWrites() {
		// The store ignores If-None-Match: a Lance table is safe only with
		// the database deciding its commits (see SetManagedVersioning).
		in.ManagedVersioning = true
	}
	if len(in.Tags) > maxBucketTags {
		return Bucket{}, Invalid("tags", fmt.Sprintf("a bucket may have at most %d tags", maxBucketTags))
	}
	b := Bucket{
		Name:      in.Name,
		Format:    in.Format,
		ARN:       s.bucketARN(in.Name),
		Owner:     in.Owner,
		Tags:      map[string]string{},
		CreatedAt: s.now().UTC(),

		ManagedVersioning: in.ManagedVersioning,
		Protected:         in.Protected,
		SoftDeleteHold:    -1,
	}
	for k, v := range in.Tags {
		b.Tags[k] = v
	}
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		if old, err := s.getBucketAny(ctx, tx, in.Name); err == nil {
			if !old.DeletedAt.IsZero() {
				return newErr(fault.AlreadyExists, "name",
					"bucket %q was deleted at %s and still holds recently deleted tables, so its name stays taken until they are purged; undrop it (floe bucket undrop %s, or the console's Recently deleted buckets), purge it, or pick another name",
					in.Name, old.DeletedAt.Format(time.RFC3339), in.Name)
			}
			return newErr(fault.AlreadyExists, "name", "bucket %q already exists; pick another name", in.Name)
		} else if !errors.Is(err, fault.NotFound) {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO buckets(name, format, arn, owner, tags, created_at, lance_managed_versioning, protected) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			b.Name, string(b.Format), b.ARN, b.Owner, encodeMap(b.Tags), micros(b.CreatedAt), boolInt(b.ManagedVersioning), boolInt(b.Protected)); err != nil {
			if s.isUniqueViolation(err) {
				return newErr(fault.AlreadyExists, "name", "bucket %q already exists; pick another name", in.Name)
			}
			return dbErr("insert bucket", err)
		}
		if err := s.wh.MkdirAll(ctx, s.BucketRoot(b.Name)); err != nil {
			return storageErr("create bucket directory", err)
		}
		return nil
	})
	if err != nil {
		return Bucket{}, err
	}
	return b, nil
}

// bucketColumns selects a bucket with its visible table count, which
// triggers keep in buckets.table_count (migration 0003), so listing buckets
// reads one row per bucket however many tables they hold.
const bucketColumns = `b.name, b.format, b.arn, b.owner, b.tags, b.created_at, b.table_count, b.lance_managed_versioning,
	b.protected, b.soft_delete_hold, b.deleted_at`

func scanBucket(sc interface{ Scan(...any) error }) (Bucket, error) {
	var b Bucket
	var format, tags string
	var created, managed, protected, hold, deleted int64
	if err := sc.Scan(&b.Name, &format, &b.ARN, &b.Owner, &tags, &created, &b.TableCount, &managed,
		&protected, &hold, &deleted); err != nil {
		return Bucket{}, err
	}
	b.Protected = protected != 0
	b.SoftDeleteHold = -1
	if hold >= 0 {
		b.SoftDeleteHold = time.Duration(hold) * time.Microsecond
	}
	if deleted != 0 {
		b.DeletedAt = fromMicros(deleted)
	}
	b.ManagedVersioning = managed != 0
	b.Format = Format(format)
	b.Tags = decodeMap(tags)
	b.CreatedAt = fromMicros(created)
	return b, nil
}

// GetBucket returns one bucket with its TableCount; with CacheReads on, from
// the read cache while nothing has changed since it was read (see
// tableCache).
func (s *Store) GetBucket(ctx context.Context, name string) (Bucket, error) {
	if err := validateBucket("bucket", name); err != nil {
		return Bucket{}, err
	}
	now := time.Now()
	if b, ok := s.tables.getBucket(ctx, name, now); ok {
		return b, nil
	}
	st, g, cacheable := s.tables.stamped(ctx)
	b, err := s.getBucket(ctx, s.ro, name)
	if err == nil && cacheable {
		s.tables.putBucket(b, st, g, now)
	}
	return b, err
}

func (s *Store) getBucket(ctx context.Context, q querier, name string) (Bucket, error) {
	b, err := scanBucket(q.QueryRowContext(ctx, `SELECT `+bucketColumns+` FROM buckets b WHERE b.name = ? AND b.deleted_at = 0`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Bucket{}, bucketNotFound(name)
	}
	if err != nil {
		return Bucket{}, dbErr("get bucket", err)
	}
	return b, nil
}

func bucketNotFound(name string) error {
	return newErr(fault.NotFound, "bucket", "bucket %q does not exist; create it first", name)
}

// ListBuckets lists buckets by name with TableCount filled. next is "" on the
// last page, else the After value for the next page.
func (s *Store) ListBuckets(ctx context.Context, opt ListOptions) (items []Bucket, next string, err error) {
	limit := pageLimit(opt.Limit)
	rows, err := s.ro.QueryContext(ctx,
		`SELECT `+bucketColumns+` FROM buckets b WHERE b.name > ? AND b.deleted_at = 0 ORDER BY b.name LIMIT ?`, opt.After, limit+1)
	if err != nil {
		return nil, "", dbErr("list buckets", err)
	}
	defer rows.Close()
	items = []Bucket{}
	for rows.Next() {
		b, err := scanBucket(rows)
		if err != nil {
			return nil, "", dbErr("list buckets", err)
		}
		items = append(items, b)
	}
	if err := rows.Err(); err != nil {
		return nil, "", dbErr("list buckets", err)
	}
	if len(items) > limit {
		items = items[:limit]
		next = items[limit-1].Name
	}
	return items, next, nil
}

// DeleteBucket deletes an empty bucket (fault.NotEmpty otherwise) unless
// cascade, which drops every namespace and table in it (recently deleted
// for the bucket's hold, then their data goes).
func (s *Store) DeleteBucket(ctx context.Context, name string, cascade bool) error {
	return s.DeleteBucketWith(ctx, name, CascadeOptions{Cascade: cascade})
}

// DeleteBucketWith is the one bucket delete every surface reaches. A
// protected bucket refuses, and so does a cascade over a protected
// namespace or table inside, unless forced. A bucket that still holds
// recently deleted tables afterwards (from this cascade or earlier drops)
// becomes a recently deleted bucket: hidden, its name taken, until
// UndropBucket or the purge of its last table.
func (s *Store) DeleteBucketWith(ctx context.Context, name string, opt CascadeOptions) error {
	if err := validateBucket("bucket", name); err != nil {
		return err
	}
	var dropped []Table
	var held bool
	var purgeAt time.Time
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		b, err := s.getBucket(ctx, tx, name)
		if err != nil {
			return err
		}
		if b.Protected && !opt.Force {
			return protectedBucketErr(name, "delete")
		}
		var nsCount int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM namespaces WHERE bucket = ?`, name).Scan(&nsCount); err != nil {
			return dbErr("count namespaces", err)
		}
		tables, err := s.loadTables(ctx, tx, `bucket = ?`, name)
		if err != nil {
			return err
		}
		if (nsCount > 0 || len(tables) > 0) && !opt.Cascade {
			return newErr(fault.NotEmpty, "bucket",
				"bucket %q is not empty (%s, %s); drop them first or delete with cascade, which deletes their data",
				name, counted(nsCount, "namespace", "namespaces"), counted(len(tables), "table", "tables"))
		}
		nss, err := s.loadNamespaces(ctx, tx, `bucket = ?`, name)
		if err != nil {
			return err
		}
		if err := checkSubtreeProtection(name, fmt.Sprintf("bucket %q", name), "delete", nss, tables, opt.Force); err != nil {
			return err
		}
		hold, err := s.holdOf(ctx, tx, b)
		if err != nil {
			return err
		}
		m := s.newDeleteMeta(hold, opt.By, opt.Force, ReasonBucket)
		if err := s.dropTables(ctx, tx, tables, nil, hold, m); err != nil {
			return err
		}
		dropped, held, purgeAt = tables, hold > 0, m.purgeAt // a retried transaction starts over
		// Views hold no data of their own: a cascade forgets them.
		if _, err := tx.ExecContext(ctx, `DELETE FROM views WHERE bucket = ?`, name); err != nil {
			return dbErr("delete views", err)
		}
		if err := s.removeNamespaces(ctx, tx, name, nss, m.now); err != nil {
			return err
		}
		var held int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM deleted_tables WHERE bucket = ?`, name).Scan(&held); err != nil {
			return dbErr("count deleted tables", err)
		}
		if held > 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE buckets SET deleted_at = ?, deleted_drop_id = ? WHERE name = ?`,
				micros(m.now), m.dropID, name); err != nil {
				return dbErr("delete bucket", err)
			}
			return nil
		}
		return s.removeBucketRow(ctx, tx, name)
	})
	if err != nil {
		return err
	}
	for _, t := range dropped {
		s.tableChanged(t.ID)
		s.tableEvent(droppedEvent(t, true, held, purgeAt))
	}
	return nil
}

// removeBucketRow deletes a bucket's row and, when empty, its directory
// (files the catalog does not know about are not ours to delete).
func (s *Store) removeBucketRow(ctx context.Context, tx *persist.Tx, name string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM deleted_namespaces WHERE bucket = ?`, name); err != nil {
		return dbErr("delete bucket", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM buckets WHERE name = ?`, name); err != nil {
		return dbErr("delete bucket", err)
	}
	_ = s.wh.Delete(ctx, s.BucketRoot(name))
	return nil
}

// DisplayARN is a catalog ARN ("arn:floe:s3tables:<region>:<account>:…")
// in the form the S3 Tables API accepts and answers
// ("arn:aws:s3tables:<region>:<account>:…" with the S3 Tables surface's
// region and account), so the console, the CLI and the AWS tools name a
// bucket or table alike. An empty region or account, or a string that is
// not an S3 Tables ARN, comes back unchanged.
func DisplayARN(arn, region, account string) string {
	if region == "" || account == "" {
		return arn
	}
	parts := strings.SplitN(arn, ":", 6) // arn, partition, service, region, account, resource
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "s3tables" {
		return arn
	}
	return "arn:aws:s3tables:" + region + ":" + account + ":" + parts[5]
}
