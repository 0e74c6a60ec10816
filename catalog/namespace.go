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
	"github.com/floe/floe/warehouse"
)

// namespaceDir is the namespace's directory (ns is its levels joined by
// "."): <warehouse>/<bucket>/<NamespaceDirName>, "a.b" for levels a and b.
// It is also a LanceDB directory-catalog root.
func (s *Store) namespaceDir(bucket, ns string) warehouse.Location {
	return join(s.wh.Root(), bucket, NamespaceDirName(SplitNamespace(ns)))
}

// subtreeBounds gives the half-open name range of every descendant of ns:
// names are levels (which hold no '.') joined by '.', and '/' sorts right after '.',
// so [ns+".", ns+"/") holds exactly the descendants and uses the index.
func subtreeBounds(ns string) (lo, hi string) { return ns + ".", ns + "/" }

func nsNotFound(bucket, ns string) error {
	return newErr(fault.NotFound, "namespace", "namespace %q does not exist in bucket %q; create it first", ns, bucket)
}

// CreateNamespace creates one namespace; its parent must exist (fault.NotFound,
// Field "namespace"). fault.AlreadyExists when present.
func (s *Store) CreateNamespace(ctx context.Context, bucket string, levels []string, props map[string]string) (Namespace, error) {
	if err := validateBucket("bucket", bucket); err != nil {
		return Namespace{}, err
	}
	if err := validateNamespace(levels); err != nil {
		return Namespace{}, err
	}
	if err := checkProtectedValue(props); err != nil {
		return Namespace{}, err
	}
	name := JoinNamespace(levels)
	parent := JoinNamespace(levels[:len(levels)-1])
	ns := Namespace{Bucket: bucket, Levels: append([]string(nil), levels...), Properties: map[string]string{}, CreatedAt: s.now().UTC()}
	for k, v := range props {
		ns.Properties[k] = v
	}
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		if _, err := s.getBucket(ctx, tx, bucket); err != nil {
			return err
		}
		if parent != "" {
			ok, err := namespaceExists(ctx, tx, bucket, parent)
			if err != nil {
				return err
			}
			if !ok {
				return newErr(fault.NotFound, "namespace",
					"parent namespace %q does not exist in bucket %q; create it first", parent, bucket)
			}
		}
		ok, err := namespaceExists(ctx, tx, bucket, name)
		if err != nil {
			return err
		}
		if ok {
			return newErr(fault.AlreadyExists, "namespace", "namespace %q already exists in bucket %q", name, bucket)
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO namespaces(bucket, name, parent, properties, created_at) VALUES (?, ?, ?, ?, ?)`,
			bucket, name, parent, encodeMap(ns.Properties), micros(ns.CreatedAt)); err != nil {
			if s.isUniqueViolation(err) {
				return newErr(fault.AlreadyExists, "namespace", "namespace %q already exists in bucket %q", name, bucket)
			}
			return dbErr("insert namespace", err)
		}
		if err := s.wh.MkdirAll(ctx, s.namespaceDir(bucket, name)); err != nil {
			return storageErr("create namespace directory", err)
		}
		return nil
	})
	if err != nil {
		return Namespace{}, err
	}
	return ns, nil
}

func namespaceExists(ctx context.Context, q querier, bucket, name string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM namespaces WHERE bucket = ? AND name = ?`, bucket, name).Scan(&n); err != nil {
		return false, dbErr("check namespace", err)
	}
	return n > 0, nil
}

// requireNamespace returns fault.NotFound naming the bucket or the namespace
// that is missing.
func (s *Store) requireNamespace(ctx context.Context, q querier, bucket, name string) error {
	ok, err := namespaceExists(ctx, q, bucket, name)
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	if _, err := s.getBucket(ctx, q, bucket); err != nil {
		return err
	}
	return nsNotFound(bucket, name)
}

func scanNamespace(sc interface{ Scan(...any) error }) (Namespace, error) {
	var ns Namespace
	var name, props string
	var created int64
	if err := sc.Scan(&ns.Bucket, &name, &props, &created, &ns.TableCount); err != nil {
		return Namespace{}, err
	}
	ns.Levels = SplitNamespace(name)
	ns.Properties = decodeMap(props)
	ns.CreatedAt = fromMicros(created)
	return ns, nil
}

const namespaceColumns = `bucket, name, properties, created_at, table_count`

// GetNamespace returns one namespace.
func (s *Store) GetNamespace(ctx context.Context, bucket string, levels []string) (Namespace, error) {
	if err := validateBucket("bucket", bucket); err != nil {
		return Namespace{}, err
	}
	if err := validateNamespace(levels); err != nil {
		return Namespace{}, err
	}
	return s.getNamespace(ctx, s.ro, bucket, JoinNamespace(levels))
}

func (s *Store) getNamespace(ctx context.Context, q querier, bucket, name string) (Namespace, error) {
	ns, err := scanNamespace(q.QueryRowContext(ctx,
		`SELECT `+namespaceColumns+` FROM namespaces WHERE bucket = ? AND name = ?`, bucket, name))
	if errors.Is(err, sql.ErrNoRows) {
		if _, berr := s.getBucket(ctx, q, bucket); berr != nil {
			return Namespace{}, berr
		}
		return Namespace{}, nsNotFound(bucket, name)
	}
	if err != nil {
		return Namespace{}, dbErr("get namespace", err)
	}
	return ns, nil
}

// ListNamespaces lists direct children of parent (nil = top level of the bucket).
func (s *Store) ListNamespaces(ctx context.Context, bucket string, parent []string, opt ListOptions) (items []Namespace, next string, err error) {
	if err := validateBucket("bucket", bucket); err != nil {
		return nil, "", err
	}
	if len(parent) > 0 {
		if err := validateNamespace(parent); err != nil {
			return nil, "", err
		}
		if err := s.requireNamespace(ctx, s.ro, bucket, JoinNamespace(parent)); err != nil {
			return nil, "", err
		}
	} else if _, err := s.GetBucket(ctx, bucket); err != nil { // the read cache's, when on: a page that showed the bucket has it
		return nil, "", err
	}
	return s.listNamespaces(ctx, bucket, parent, opt)
}

// ListChildNamespaces is ListNamespaces under a namespace the caller has
// just read (GetNamespace): it does not look the parent up again, so a
// page that shows a namespace and its children pays one query for them.
// A parent dropped since the read lists no children.
func (s *Store) ListChildNamespaces(ctx context.Context, parent Namespace, opt ListOptions) (items []Namespace, next string, err error) {
	return s.listNamespaces(ctx, parent.Bucket, parent.Levels, opt)
}

func (s *Store) listNamespaces(ctx context.Context, bucket string, parent []string, opt ListOptions) (items []Namespace, next string, err error) {
	// After may be a full name ("a.b") or just the last level ("b").
	after := opt.After
	if after != "" && len(parent) > 0 && len(SplitNamespace(after)) == 1 {
		after = JoinNamespace(append(append([]string(nil), parent...), after))
	}
	limit := pageLimit(opt.Limit)
	rows, err := s.ro.QueryContext(ctx,
		`SELECT `+namespaceColumns+` FROM namespaces WHERE bucket = ? AND parent = ? AND name > ? ORDER BY name LIMIT ?`,
		bucket, JoinNamespace(parent), after, limit+1)
	if err != nil {
		return nil, "", dbErr("list namespaces", err)
	}
	defer rows.Close()
	items = []Namespace{}
	for rows.Next() {
		ns, err := scanNamespace(rows)
		if err != nil {
			return nil, "", dbErr("list namespaces", err)
		}
		items = append(items, ns)
	}
	if err := rows.Err(); err != nil {
		return nil, "", dbErr("list namespaces", err)
	}
	if len(items) > limit {
		items = items[:limit]
		next = items[limit-1].Name()
	}
	return items, next, nil
}

// ListAllNamespaces lists every namespace of a bucket at every depth, sorted.
func (s *Store) ListAllNamespaces(ctx context.Context, bucket string) ([]Namespace, error) {
	if err := validateBucket("bucket", bucket); err != nil {
		return nil, err
	}
	if _, err := s.GetBucket(ctx, bucket); err != nil { // from the read cache, when on
		return nil, err
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT `+namespaceColumns+` FROM namespaces WHERE bucket = ? ORDER BY name`, bucket)
	if err != nil {
		return nil, dbErr("list namespaces", err)
	}
	defer rows.Close()
	items := []Namespace{}
	for rows.Next() {
		ns, err := scanNamespace(rows)
		if err != nil {
			return nil, dbErr("list namespaces", err)
		}
		items = append(items, ns)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("list namespaces", err)
	}
	return items, nil
}

// UpdateNamespaceProperties removes then sets properties; returns the result.
func (s *Store) UpdateNamespaceProperties(ctx context.Context, bucket string, levels []string, removals []string, updates map[string]string) (Namespace, error) {
	if err := validateBucket("bucket", bucket); err != nil {
		return Namespace{}, err
	}
	if err := validateNamespace(levels); err != nil {
		return Namespace{}, err
	}
	var out Namespace
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		ns, err := s.getNamespace(ctx, tx, bucket, JoinNamespace(levels))
		if err != nil {
			return err
		}
		for _, k := range removals {
			delete(ns.Properties, k)
		}
		for k, v := range updates {
			ns.Properties[k] = v
		}
		if err := CheckProperties("namespace", ns.Properties); err != nil {
			return err
		}
		if err := checkProtectedValue(ns.Properties); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE namespaces SET properties = ? WHERE bucket = ? AND name = ?`,
			encodeMap(ns.Properties), bucket, ns.Name()); err != nil {
			return dbErr("update namespace", err)
		}
		out = ns
		return nil
	})
	return out, err
}

// DropNamespace deletes a namespace. Non-empty (child namespaces or tables)
// gives fault.NotEmpty unless cascade, which drops children and tables
// (recently deleted for the bucket's hold, then their data goes).
func (s *Store) DropNamespace(ctx context.Context, bucket string, levels []string, cascade bool) error {
	return s.DropNamespaceWith(ctx, bucket, levels, CascadeOptions{Cascade: cascade})
}

// subtreeWhere selects a namespace and every namespace under it by name
// (column col), for its three arguments bucket, name, lo, hi.
func subtreeWhere(col string) string {
	return `bucket = ? AND (` + col + ` = ? OR (` + col + ` >= ? AND ` + col + ` < ?))`
}

// DropNamespaceWith is the one namespace drop every surface reaches. A
// protected namespace refuses, and so does a cascade over a protected
// namespace or table inside, unless forced. A cascade never deletes the
// data of a table whose data lies in another namespace's directory (one
// renamed in from there): its entry goes, its files stay.
func (s *Store) DropNamespaceWith(ctx context.Context, bucket string, levels []string, opt CascadeOptions) error {
	if err := validateBucket("bucket", bucket); err != nil {
		return err
	}
	if err := validateNamespace(levels); err != nil {
		return err
	}
	name := JoinNamespace(levels)
	lo, hi := subtreeBounds(name)
	var dropped []Table
	var kept map[string]bool
	var held bool
	var purgeAt time.Time
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		ns, err := s.getNamespace(ctx, tx, bucket, name)
		if err != nil {
			return err
		}
		if ns.Protected() && !opt.Force {
			return protectedNamespaceErr(bucket, name, "drop")
		}
		var children int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM namespaces WHERE bucket = ? AND name >= ? AND name < ?`,
			bucket, lo, hi).Scan(&children); err != nil {
			return dbErr("count namespaces", err)
		}
		tables, err := s.loadTables(ctx, tx, subtreeWhere("namespace"), bucket, name, lo, hi)
		if err != nil {
			return err
		}
		views, err := countViews(ctx, tx, subtreeWhere("namespace"), bucket, name, lo, hi)
		if err != nil {
			return err
		}
		if views > 0 && !opt.Cascade {
			return newErr(fault.NotEmpty, "namespace",
				"namespace %q in bucket %q holds %s; drop them first or drop with cascade", name, bucket, counted(views, "view", "views"))
		}
		if (children > 0 || len(tables) > 0) && !opt.Cascade {
			return newErr(fault.NotEmpty, "namespace",
				"namespace %q in bucket %q is not empty (%s, %s); drop them first or drop with cascade, which deletes their data",
				name, bucket, counted(children, "child namespace", "child namespaces"), counted(len(tables), "table", "tables"))
		}
		nss, err := s.loadNamespaces(ctx, tx, subtreeWhere("name"), bucket, name, lo, hi)
		if err != nil {
			return err
		}
		if err := checkSubtreeProtection(bucket, fmt.Sprintf("namespace %q of bucket %q", name, bucket), "a cascade", nss, tables, opt.Force); err != nil {
			return err
		}
		// A table renamed in from another namespace keeps its data where
		// it lies: the cascade takes its entry (recently deleted, so it
		// can be undropped) and never its files.
		foreign, err := s.foreignIn(ctx, tx, bucket, name, tables)
		if err != nil {
			return err
		}
		keepData := make(map[string]bool, len(foreign))
		for _, t := range foreign {
			keepData[t.ID] = true
		}
		b, err := s.getBucket(ctx, tx, bucket)
		if err != nil {
			return err
		}
		hold, err := s.holdOf(ctx, tx, b)
		if err != nil {
			return err
		}
		m := s.newDeleteMeta(hold, opt.By, opt.Force, ReasonCascade)
		if err := s.dropTables(ctx, tx, tables, keepData, hold, m); err != nil {
			return err
		}
		dropped, kept, held, purgeAt = tables, keepData, hold > 0, m.purgeAt // a retried transaction starts over
		if _, err := tx.ExecContext(ctx, `DELETE FROM views WHERE `+subtreeWhere("namespace"), bucket, name, lo, hi); err != nil {
			return dbErr("delete views", err)
		}
		if err := s.removeNamespaces(ctx, tx, bucket, nss, m.now); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range dropped {
		s.tableChanged(t.ID)
		s.tableEvent(droppedEvent(t, !kept[t.ID], held, purgeAt))
	}
	return nil
}

// removeNamespaces deletes namespace rows, keeping a copy of those that
// recently deleted tables still name, and removes their directories when
// empty (anything left in one was not the catalog's to delete, or is a
// recently deleted table's data).
func (s *Store) removeNamespaces(ctx context.Context, tx *persist.Tx, bucket string, nss []Namespace, now time.Time) error {
	if err := s.recordDeletedNamespaces(ctx, tx, bucket, nss, now); err != nil {
		return err
	}
	for _, n := range nss {
		if _, err := tx.ExecContext(ctx, `DELETE FROM namespaces WHERE bucket = ? AND name = ?`, bucket, n.Name()); err != nil {
			return dbErr("delete namespaces", err)
		}
	}
	for _, n := range nss {
		_ = s.wh.Delete(ctx, s.namespaceDir(bucket, n.Name()))
	}
	return nil
}

// loadNamespaces reads every namespace matching a condition, sorted by name.
func (s *Store) loadNamespaces(ctx context.Context, q querier, where string, args ...any) ([]Namespace, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+namespaceColumns+` FROM namespaces WHERE `+where+` ORDER BY name`, args...)
	if err != nil {
		return nil, dbErr("list namespaces", err)
	}
	defer rows.Close()
	var out []Namespace
	for rows.Next() {
		ns, err := scanNamespace(rows)
		if err != nil {
			return nil, dbErr("list namespaces", err)
		}
		out = append(out, ns)
	}
	return out, rows.Err()
}

// foreignIn returns the tables of namespace ns's subtree whose data lies in
// the directory of another namespace that exists (a table renamed in from
// there): ns's cascade and overwrite never touch them, since what lies
// under another namespace's directory is not ns's to delete.
func (s *Store) foreignIn(ctx context.Context, q querier, bucket, ns string, tables []Table) ([]Table, error) {
	root := s.BucketRoot(bucket)
	var out []Table
	for _, t := range tables {
		loc, err := warehouse.Parse(t.Location)
		if err != nil {
			continue
		}
		rel, ok := loc.Rel(root)
		if !ok {
			continue
		}
		dir, _, _ := strings.Cut(rel, "/")
		if dir == ns || strings.HasPrefix(dir, ns+".") {
			continue
		}
		other, err := namespaceExists(ctx, q, bucket, dir)
		if err != nil {
			return nil, err
		}
		if other {
			out = append(out, t)
		}
	}
	return out, nil
}
