package catalog

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/warehouse"
)

// View is a catalog entry for an Iceberg view: a name pointing at the
// view's current metadata file. A view holds no data; its metadata files
// (one per change) live under Location.
type View struct {
	ID               string // UUID of the entry (not the view-uuid inside the metadata)
	Bucket           string
	Namespace        []string
	Name             string
	Location         string
	MetadataLocation string
	VersionToken     string // compare-and-swap token, changes on every commit
	CreatedAt        time.Time
	ModifiedAt       time.Time
}

// CreateViewInput is a view entry to add: the metadata file is written by
// the caller (the Iceberg library) before the entry exists.
type CreateViewInput struct {
	TableRef
	Location         string
	MetadataLocation string
}

const viewColumns = `id, bucket, namespace, name, location, metadata_location, version_token, created_at, modified_at`

func scanView(sc interface{ Scan(...any) error }) (View, error) {
	var v View
	var ns string
	var created, modified int64
	if err := sc.Scan(&v.ID, &v.Bucket, &ns, &v.Name, &v.Location, &v.MetadataLocation, &v.VersionToken,
		&created, &modified); err != nil {
		return View{}, err
	}
	v.Namespace = SplitNamespace(ns)
	v.CreatedAt = fromMicros(created)
	v.ModifiedAt = fromMicros(modified)
	return v, nil
}

func viewNotFound(ref TableRef) error {
	return newErr(fault.NotFound, "view", "view %q does not exist in namespace %q of bucket %q",
		ref.Name, JoinNamespace(ref.Namespace), ref.Bucket)
}

// findView returns the view entry for ref, or ok=false when there is none.
func findView(ctx context.Context, q querier, ref TableRef) (View, bool, error) {
	v, err := scanView(q.QueryRowContext(ctx,
		`SELECT `+viewColumns+` FROM views WHERE bucket = ? AND namespace = ? AND name = ?`,
		ref.Bucket, JoinNamespace(ref.Namespace), ref.Name))
	if errors.Is(err, sql.ErrNoRows) {
		return View{}, false, nil
	}
	if err != nil {
		return View{}, false, dbErr("get view", err)
	}
	return v, true, nil
}

// nameFreeOfViews refuses a table name a view of the namespace holds: one
// name means one thing to an engine's SQL.
func nameFreeOfViews(ctx context.Context, q querier, ref TableRef) error {
	if _, taken, err := findView(ctx, q, ref); err != nil {
		return err
	} else if taken {
		return newErr(fault.AlreadyExists, "name",
			"a view named %q already exists in namespace %q of bucket %q; a table and a view never share a name, so pick another",
			ref.Name, JoinNamespace(ref.Namespace), ref.Bucket)
	}
	return nil
}

// nameFreeOfTables refuses a view name a table of the namespace holds,
// whatever its format.
func (s *Store) nameFreeOfTables(ctx context.Context, q querier, ref TableRef) error {
	if t, taken, err := s.findTable(ctx, q, ref); err != nil {
		return err
	} else if taken {
		return newErr(fault.AlreadyExists, "name",
			"a table named %q (%s) already exists in namespace %q of bucket %q; a table and a view never share a name, so pick another",
			ref.Name, t.Format, JoinNamespace(ref.Namespace), ref.Bucket)
	}
	return nil
}

// DefaultViewLocation is where a new view's metadata files go when the
// client names no location: the place a table of that name would have, or,
// when a table (renamed away) still keeps its files there, a place of its own.
func (s *Store) DefaultViewLocation(ctx context.Context, ref TableRef) (string, error) {
	loc := s.defaultLocation(ref, FormatIceberg)
	users, err := s.locationUsers(ctx, s.ro, loc, "")
	if err != nil {
		return "", err
	}
	if len(users) > 0 {
		loc = s.tableDir(ref, FormatIceberg, "-"+uuid.NewString()[:8])
	}
	return loc.String(), nil
}

// CreateView adds a view entry. The name must be free of tables and views
// (fault.AlreadyExists), the bucket must accept Iceberg (fault.Conflict), and the
// location must be a place for a table of the bucket that no table's data
// overlaps, since a view's files must not sit inside a table a drop deletes.
func (s *Store) CreateView(ctx context.Context, in CreateViewInput) (View, error) {
	if err := validateRef(in.TableRef); err != nil {
		return View{}, err
	}
	loc, err := resolveLocation(in.Location)
	if err != nil {
		return View{}, err
	}
	if loc.IsZero() {
		return View{}, Invalid("location", "a view needs a location for its metadata files")
	}
	meta, err := warehouse.Parse(in.MetadataLocation)
	if err != nil || !meta.Within(loc) {
		return View{}, Invalid("metadata-location", "the view's metadata file must lie under its location "+loc.String())
	}
	var v View
	err = s.inTx(ctx, func(tx *persist.Tx) error {
		b, err := s.getBucket(ctx, tx, in.Bucket)
		if err != nil {
			return err
		}
		if err := checkBucketAccepts(b, FormatIceberg); err != nil {
			return err
		}
		if err := s.requireNamespace(ctx, tx, in.Bucket, JoinNamespace(in.Namespace)); err != nil {
			return err
		}
		if err := s.nameFreeOfTables(ctx, tx, in.TableRef); err != nil {
			return err
		}
		if _, taken, err := findView(ctx, tx, in.TableRef); err != nil {
			return err
		} else if taken {
			return newErr(fault.AlreadyExists, "name", "view %q already exists in namespace %q of bucket %q",
				in.Name, JoinNamespace(in.Namespace), in.Bucket)
		}
		if err := s.checkPlacement(in.Bucket, loc); err != nil {
			return err
		}
		if err := s.checkFree(ctx, tx, loc, ""); err != nil {
			return err
		}
		now := s.now().UTC()
		v = View{
			ID: uuid.NewString(), Bucket: in.Bucket, Namespace: append([]string(nil), in.Namespace...), Name: in.Name,
			Location: loc.String(), MetadataLocation: meta.String(), VersionToken: newVersionToken(),
			CreatedAt: now, ModifiedAt: now,
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO views(`+viewColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			v.ID, v.Bucket, JoinNamespace(v.Namespace), v.Name, v.Location, v.MetadataLocation, v.VersionToken,
			micros(now), micros(now)); err != nil {
			if s.isUniqueViolation(err) {
				return newErr(fault.AlreadyExists, "name", "view %q already exists", in.Name)
			}
			return dbErr("insert view", err)
		}
		return nil
	})
	return v, err
}

// GetView returns a view entry or fault.NotFound naming what is missing
// (bucket, namespace or view).
func (s *Store) GetView(ctx context.Context, ref TableRef) (View, error) {
	if err := validateRef(ref); err != nil {
		return View{}, err
	}
	v, ok, err := findView(ctx, s.ro, ref)
	if err != nil {
		return View{}, err
	}
	if !ok {
		if err := s.requireNamespace(ctx, s.ro, ref.Bucket, JoinNamespace(ref.Namespace)); err != nil {
			return View{}, err
		}
		return View{}, viewNotFound(ref)
	}
	return v, nil
}

// ListViews lists the views directly in a namespace, sorted by name; next
// is the After of the following page ("" at the end).
func (s *Store) ListViews(ctx context.Context, bucket string, ns []string, opt ListOptions) (items []View, next string, err error) {
	if err := s.checkListTables(ctx, bucket, ns); err != nil {
		return nil, "", err
	}
	return s.listViews(ctx, bucket, ns, opt)
}

// ListViewsIn is ListViews in a namespace the caller has just read
// (GetNamespace): it does not look the namespace up again. A namespace
// dropped since the read lists no views.
func (s *Store) ListViewsIn(ctx context.Context, ns Namespace, opt ListOptions) (items []View, next string, err error) {
	return s.listViews(ctx, ns.Bucket, ns.Levels, opt)
}

func (s *Store) listViews(ctx context.Context, bucket string, ns []string, opt ListOptions) (items []View, next string, err error) {
	limit := pageLimit(opt.Limit)
	rows, err := s.ro.QueryContext(ctx, `SELECT `+viewColumns+` FROM views
		WHERE bucket = ? AND namespace = ? AND name > ? ORDER BY name LIMIT ?`,
		bucket, JoinNamespace(ns), opt.After, limit+1)
	if err != nil {
		return nil, "", dbErr("list views", err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scanView(rows)
		if err != nil {
			return nil, "", dbErr("list views", err)
		}
		items = append(items, v)
	}
	if err := rows.Err(); err != nil {
		return nil, "", dbErr("list views", err)
	}
	if len(items) > limit {
		items = items[:limit]
		next = items[limit-1].Name
	}
	return items, next, nil
}

// CommitView points a view at a new metadata file if its version token
// still matches (fault.Conflict otherwise: another commit won).
func (s *Store) CommitView(ctx context.Context, id, expectedToken, newMetadataLocation string) (View, error) {
	var v View
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		v, err = scanView(tx.QueryRowContext(ctx, `SELECT `+viewColumns+` FROM views WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return newErr(fault.NotFound, "view", "the view was dropped while it was being changed")
		}
		if err != nil {
			return dbErr("get view", err)
		}
		if v.VersionToken != expectedToken {
			return newErr(fault.Conflict, "version_token", "view %q changed since it was read; reload it and retry the commit", v.Name)
		}
		v.MetadataLocation = newMetadataLocation
		v.VersionToken = newVersionToken()
		v.ModifiedAt = s.now().UTC()
		if _, err := tx.ExecContext(ctx, `UPDATE views SET metadata_location = ?, version_token = ?, modified_at = ? WHERE id = ?`,
			v.MetadataLocation, v.VersionToken, micros(v.ModifiedAt), v.ID); err != nil {
			return dbErr("commit view", err)
		}
		return nil
	})
	return v, err
}

// DropView removes a view's entry. Its metadata files stay where they are:
// the Iceberg REST spec's drop has no purge for views, and a later
// register-view can bring the view back from them.
func (s *Store) DropView(ctx context.Context, ref TableRef) (View, error) {
	if err := validateRef(ref); err != nil {
		return View{}, err
	}
	var v View
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var ok bool
		var err error
		if v, ok, err = findView(ctx, tx, ref); err != nil {
			return err
		}
		if !ok {
			if err := s.requireNamespace(ctx, tx, ref.Bucket, JoinNamespace(ref.Namespace)); err != nil {
				return err
			}
			return viewNotFound(ref)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM views WHERE id = ?`, v.ID); err != nil {
			return dbErr("drop view", err)
		}
		return nil
	})
	return v, err
}

// RenameView moves a view entry to another name and/or namespace of its
// bucket; its metadata files stay where they are.
func (s *Store) RenameView(ctx context.Context, from TableRef, toNamespace []string, toName string) (View, error) {
	if err := validateRef(from); err != nil {
		return View{}, err
	}
	to := TableRef{Bucket: from.Bucket, Namespace: toNamespace, Name: toName}
	if err := validateRef(to); err != nil {
		return View{}, err
	}
	var v View
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var ok bool
		var err error
		if v, ok, err = findView(ctx, tx, from); err != nil {
			return err
		}
		if !ok {
			if err := s.requireNamespace(ctx, tx, from.Bucket, JoinNamespace(from.Namespace)); err != nil {
				return err
			}
			return viewNotFound(from)
		}
		if JoinNamespace(to.Namespace) == JoinNamespace(from.Namespace) && to.Name == from.Name {
			return nil
		}
		if err := s.requireNamespace(ctx, tx, to.Bucket, JoinNamespace(to.Namespace)); err != nil {
			return err
		}
		if err := s.nameFreeOfTables(ctx, tx, to); err != nil {
			return err
		}
		if _, taken, err := findView(ctx, tx, to); err != nil {
			return err
		} else if taken {
			return newErr(fault.AlreadyExists, "name", "view %q already exists in namespace %q of bucket %q; pick another name",
				to.Name, JoinNamespace(to.Namespace), to.Bucket)
		}
		v.Namespace = append([]string(nil), to.Namespace...)
		v.Name = to.Name
		v.VersionToken = newVersionToken()
		v.ModifiedAt = s.now().UTC()
		if _, err := tx.ExecContext(ctx, `UPDATE views SET namespace = ?, name = ?, version_token = ?, modified_at = ? WHERE id = ?`,
			JoinNamespace(v.Namespace), v.Name, v.VersionToken, micros(v.ModifiedAt), v.ID); err != nil {
			if s.isUniqueViolation(err) {
				return newErr(fault.AlreadyExists, "name", "view %q already exists", to.Name)
			}
			return dbErr("rename view", err)
		}
		return moveTableGrants(ctx, tx, from, to)
	})
	return v, err
}

// countViews counts the views matching where (a namespace or a bucket),
// for the "not empty" checks of drops.
func countViews(ctx context.Context, q querier, where string, args ...any) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM views WHERE `+where, args...).Scan(&n); err != nil {
		return 0, dbErr("count views", err)
	}
	return n, nil
}
