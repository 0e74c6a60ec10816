package catalog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/floe/floe/persist"
)

// Overwrite is explicit: a Lance CreateNamespace with mode overwrite on a
// namespace (or bucket) that holds tables makes it empty by moving its
// tables to recently deleted — never by deleting data, whatever the hold
// (a hold of 0 gets DefaultSoftDeleteHold here) — and refuses when anything
// inside is protected, unless forced. A table whose data lies under another
// namespace's directory (renamed in from there) is not the namespace's to
// overwrite: it stays where it is, entry and data untouched.

// OverwriteNamespace empties an existing namespace and gives it props. It
// returns the namespace and the tables left in place because their data
// lies under another namespace.
func (s *Store) OverwriteNamespace(ctx context.Context, bucket string, levels []string, props map[string]string, opt CascadeOptions) (Namespace, []Table, error) {
	if err := validateBucket("bucket", bucket); err != nil {
		return Namespace{}, nil, err
	}
	if err := validateNamespace(levels); err != nil {
		return Namespace{}, nil, err
	}
	if err := checkProtectedValue(props); err != nil {
		return Namespace{}, nil, err
	}
	name := JoinNamespace(levels)
	lo, hi := subtreeBounds(name)
	var out Namespace
	var kept, moved []Table
	var purgeAt time.Time
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		ns, err := s.getNamespace(ctx, tx, bucket, name)
		if err != nil {
			return err
		}
		if ns.Protected() && !opt.Force {
			return protectedNamespaceErr(bucket, name, "overwrite")
		}
		tables, err := s.loadTables(ctx, tx, subtreeWhere("namespace"), bucket, name, lo, hi)
		if err != nil {
			return err
		}
		nss, err := s.loadNamespaces(ctx, tx, subtreeWhere("name"), bucket, name, lo, hi)
		if err != nil {
			return err
		}
		if err := checkSubtreeProtection(bucket, fmt.Sprintf("namespace %q of bucket %q", name, bucket), "overwrite", nss, tables, opt.Force); err != nil {
			return err
		}
		if kept, err = s.foreignIn(ctx, tx, bucket, name, tables); err != nil {
			return err
		}
		keep := map[string]bool{name: true} // namespaces that stay: ns itself, and where kept tables live
		foreign := map[string]bool{}
		for _, t := range kept {
			foreign[t.ID] = true
			levels := t.Namespace
			for i := len(levels); i > len(ns.Levels); i-- {
				keep[JoinNamespace(levels[:i])] = true
			}
		}
		for _, t := range tables {
			if !foreign[t.ID] {
				moved = append(moved, t)
			}
		}
		m, err := s.overwriteMeta(ctx, tx, bucket, opt)
		if err != nil {
			return err
		}
		if err := s.softDeleteAll(ctx, tx, moved, m); err != nil {
			return err
		}
		purgeAt = m.purgeAt
		if _, err := tx.ExecContext(ctx, `DELETE FROM views WHERE `+subtreeWhere("namespace"), bucket, name, lo, hi); err != nil {
			return dbErr("delete views", err)
		}
		var gone []Namespace
		for _, n := range nss {
			if !keep[n.Name()] {
				gone = append(gone, n)
			}
		}
		if err := s.removeNamespaces(ctx, tx, bucket, gone, m.now); err != nil {
			return err
		}
		ns.Properties = map[string]string{}
		for k, v := range props {
			ns.Properties[k] = v
		}
		if _, err := tx.ExecContext(ctx, `UPDATE namespaces SET properties = ? WHERE bucket = ? AND name = ?`,
			encodeMap(ns.Properties), bucket, name); err != nil {
			return dbErr("update namespace", err)
		}
		out = ns
		return nil
	})
	if err != nil {
		return Namespace{}, nil, err
	}
	for _, t := range moved {
		s.tableChanged(t.ID)
		s.tableEvent(droppedEvent(t, true, true, purgeAt))
	}
	return out, kept, nil
}

// OverwriteBucket empties an existing bucket (every table to recently
// deleted, every namespace and view gone) and gives it the tags and
// managed-versioning setting of a new LANCE bucket.
func (s *Store) OverwriteBucket(ctx context.Context, name string, tags map[string]string, managed bool, opt CascadeOptions) (Bucket, error) {
	if err := validateBucket("bucket", name); err != nil {
		return Bucket{}, err
	}
	if len(tags) > maxBucketTags {
		return Bucket{}, Invalid("tags", fmt.Sprintf("a bucket may have at most %d tags", maxBucketTags))
	}
	var tables []Table
	var purgeAt time.Time
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		b, err := s.getBucket(ctx, tx, name)
		if err != nil {
			return err
		}
		if b.Protected && !opt.Force {
			return protectedBucketErr(name, "overwrite")
		}
		if tables, err = s.loadTables(ctx, tx, `bucket = ?`, name); err != nil {
			return err
		}
		nss, err := s.loadNamespaces(ctx, tx, `bucket = ?`, name)
		if err != nil {
			return err
		}
		if err := checkSubtreeProtection(name, fmt.Sprintf("bucket %q", name), "overwrite", nss, tables, opt.Force); err != nil {
			return err
		}
		m, err := s.overwriteMeta(ctx, tx, name, opt)
		if err != nil {
			return err
		}
		if err := s.softDeleteAll(ctx, tx, tables, m); err != nil {
			return err
		}
		purgeAt = m.purgeAt
		if _, err := tx.ExecContext(ctx, `DELETE FROM views WHERE bucket = ?`, name); err != nil {
			return dbErr("delete views", err)
		}
		if err := s.removeNamespaces(ctx, tx, name, nss, m.now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE buckets SET format = ?, tags = ?, lance_managed_versioning = ? WHERE name = ?`,
			string(FormatLance), encodeMap(tags), boolInt(managed), name); err != nil {
			return dbErr("update bucket", err)
		}
		return nil
	})
	if err != nil {
		return Bucket{}, err
	}
	for _, t := range tables {
		s.tableChanged(t.ID)
		s.tableEvent(droppedEvent(t, true, true, purgeAt))
	}
	return s.GetBucket(ctx, name)
}

// overwriteMeta is the drop record of an overwrite: the bucket's hold, or
// DefaultSoftDeleteHold when that is 0, since an overwrite never deletes
// data at once.
func (s *Store) overwriteMeta(ctx context.Context, tx *persist.Tx, bucket string, opt CascadeOptions) (deleteMeta, error) {
	b, err := s.getBucket(ctx, tx, bucket)
	if err != nil {
		return deleteMeta{}, err
	}
	hold, err := s.holdOf(ctx, tx, b)
	if err != nil {
		return deleteMeta{}, err
	}
	if hold == 0 {
		hold = DefaultSoftDeleteHold
	}
	return s.newDeleteMeta(hold, opt.By, opt.Force, ReasonOverwrite), nil
}

// softDeleteAll checks every location, then moves every table to recently
// deleted.
func (s *Store) softDeleteAll(ctx context.Context, tx *persist.Tx, tables []Table, m deleteMeta) error {
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
		if err := s.softDelete(ctx, tx, t, true, m); err != nil {
			return err
		}
	}
	return nil
}

// KeptSentence says which tables an overwrite left in place and why.
func KeptSentence(kept []Table) string {
	if len(kept) == 0 {
		return ""
	}
	names := make([]string, len(kept))
	for i, t := range kept {
		names[i] = JoinNamespace(append(append([]string(nil), t.Namespace...), t.Name))
	}
	return "left in place, because their data lies under another namespace's directory: " + strings.Join(names, ", ")
}
