package catalog

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/floe/floe/persist"
)

// checkBucketAccepts refuses a table format the bucket was not declared for.
func checkBucketAccepts(b Bucket, f Format) error {
	if b.Format == FormatUnset || b.Format == f {
		return nil
	}
	return newErr(ErrConflict, "format",
		"bucket %q is declared for %s tables and refuses %s tables; use a bucket declared %s (or one with no declared format)",
		b.Name, b.Format, f, f)
}

func formatConflict(ref TableRef, existing Format) error {
	return newErr(ErrConflict, "name",
		"table %q already exists in namespace %q as %s table; one name holds one table across formats, so pick another name",
		ref.Name, JoinNamespace(ref.Namespace), withArticle(existing))
}

// withArticle says "a LANCE" or "an ICEBERG".
func withArticle(f Format) string {
	if f == FormatIceberg {
		return "an " + string(f)
	}
	return "a " + string(f)
}

// CreateTable creates a table entry (Lance: state declared, marker
// .lance-reserved written, directory made). Re-creating an existing table of
// the same format is idempotent (created=false); another format is ErrConflict;
// a bucket declared for the other format is ErrConflict; missing namespace is
// ErrNotFound. A deregistered Lance table comes back as declared/created
// (created=true, same table id).
func (s *Store) CreateTable(ctx context.Context, in CreateTableInput) (t Table, created bool, err error) {
	if err := validateRef(in.TableRef); err != nil {
		return Table{}, false, err
	}
	if in.Format != FormatLance && in.Format != FormatIceberg {
		return Table{}, false, Invalid("format", "table format must be LANCE or ICEBERG")
	}
	explicit := resolveLocation(in.Location)
	if explicit != "" {
		if why := s.protectedLocation(explicit); why != "" {
			return Table{}, false, Invalid("location", fmt.Sprintf("location %q cannot hold a table: %s", explicit, why))
		}
	}
	err = s.inTx(ctx, func(tx *persist.Tx) error {
		b, err := s.getBucket(ctx, tx, in.Bucket)
		if err != nil {
			return err
		}
		if err := checkBucketAccepts(b, in.Format); err != nil {
			return err
		}
		if err := s.requireNamespace(ctx, tx, in.Bucket, JoinNamespace(in.Namespace)); err != nil {
			return err
		}
		existing, ok, err := s.findTable(ctx, tx, in.TableRef)
		if err != nil {
			return err
		}
		if ok {
			if existing.Format != in.Format {
				return formatConflict(in.TableRef, existing.Format)
			}
			if existing.State == StateDeregistered {
				loc := existing.Location
				if explicit != "" {
					loc = explicit
				}
				t, err = s.revive(ctx, tx, existing, loc, true)
				created = true
				return err
			}
			t, err = s.refreshState(ctx, tx, existing)
			return err
		}
		t, err = s.insertTable(ctx, tx, in, explicit)
		created = err == nil
		return err
	})
	if err != nil {
		return Table{}, false, err
	}
	return t, created, nil
}

// insertTable adds a new entry and prepares its storage.
func (s *Store) insertTable(ctx context.Context, tx *persist.Tx, in CreateTableInput, explicit string) (Table, error) {
	id := uuid.NewString()
	loc := explicit
	if loc == "" {
		loc = cleanLocation(s.DefaultLocation(in.TableRef, in.Format))
		// A table renamed away keeps its data at its old default location;
		// a new table of that name gets a location of its own.
		users, err := s.locationUsers(ctx, tx, loc, id)
		if err != nil {
			return Table{}, err
		}
		if len(users) > 0 {
			base, ext := loc, ""
			if in.Format == FormatLance {
				base, ext = strings.TrimSuffix(loc, ".lance"), ".lance"
			}
			loc = base + "-" + id[:8] + ext
		}
	} else {
		users, err := s.locationUsers(ctx, tx, loc, id)
		if err != nil {
			return Table{}, err
		}
		if len(users) > 0 {
			u := users[0]
			return Table{}, newErr(ErrConflict, "location",
				"location %q already holds data of table %q in namespace %q of bucket %q; pick another location",
				loc, u.Name, JoinNamespace(u.Namespace), u.Bucket)
		}
	}
	now := s.now().UTC()
	t := Table{
		ID: id, Bucket: in.Bucket, Namespace: append([]string(nil), in.Namespace...), Name: in.Name,
		Format: in.Format, ARN: s.tableARN(in.Bucket, id), Location: loc,
		MetadataLocation: in.MetadataLocation, VersionToken: newVersionToken(),
		Properties: map[string]string{}, CreatedAt: now, ModifiedAt: now,
	}
	for k, v := range in.Properties {
		t.Properties[k] = v
	}
	if err := s.fs.MkdirAll(loc); err != nil {
		return Table{}, fmt.Errorf("catalog: create table directory: %w", err)
	}
	if t.Format == FormatLance {
		t.State = StateDeclared
		if ok, _ := s.fs.Exists(joinPath(loc, versionsDir)); ok {
			t.State = StateCreated
		}
		if err := s.fs.WriteFile(joinPath(loc, markerReserved), s.marker(t)); err != nil {
			return Table{}, fmt.Errorf("catalog: write %s: %w", markerReserved, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO tables(`+tableColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.Bucket, JoinNamespace(t.Namespace), t.Name, string(t.Format), t.Location, t.MetadataLocation,
		t.VersionToken, string(t.State), encodeMap(t.Properties), micros(now), micros(now)); err != nil {
		if s.isUniqueViolation(err) {
			return Table{}, newErr(ErrAlreadyExists, "name", "table %q already exists", in.Name)
		}
		return Table{}, dbErr("insert table", err)
	}
	return t, nil
}

// marker is the content of a marker file: enough for a person looking at
// storage to find the entry.
func (s *Store) marker(t Table) []byte {
	return fmt.Appendf(nil, "table_id=%s\nbucket=%s\nnamespace=%s\nname=%s\ntime=%s\n",
		t.ID, t.Bucket, JoinNamespace(t.Namespace), t.Name, s.now().UTC().Format("2006-01-02T15:04:05Z"))
}

// revive brings a deregistered Lance table back at loc with its table id:
// state declared (created when _versions/ exists), a new version token, the
// .lance-deregistered marker removed. declare also writes .lance-reserved.
func (s *Store) revive(ctx context.Context, tx *persist.Tx, t Table, loc string, declare bool) (Table, error) {
	if loc != t.Location {
		users, err := s.locationUsers(ctx, tx, loc, t.ID)
		if err != nil {
			return Table{}, err
		}
		if len(users) > 0 {
			return Table{}, newErr(ErrConflict, "location", "location %q already holds data of table %q; pick another location", loc, users[0].Name)
		}
	}
	if err := s.fs.MkdirAll(loc); err != nil {
		return Table{}, fmt.Errorf("catalog: create table directory: %w", err)
	}
	_ = s.fs.Remove(joinPath(t.Location, markerDeregistered))
	if err := s.fs.Remove(joinPath(loc, markerDeregistered)); err != nil {
		return Table{}, fmt.Errorf("catalog: remove %s: %w", markerDeregistered, err)
	}
	t.Location = loc
	t.State = StateDeclared
	if ok, _ := s.fs.Exists(joinPath(loc, versionsDir)); ok {
		t.State = StateCreated
	}
	if declare {
		if err := s.fs.WriteFile(joinPath(loc, markerReserved), s.marker(t)); err != nil {
			return Table{}, fmt.Errorf("catalog: write %s: %w", markerReserved, err)
		}
	}
	return s.updateEntry(ctx, tx, t)
}

// updateEntry writes location, state, metadata and properties with a new
// version token and modified time.
func (s *Store) updateEntry(ctx context.Context, tx *persist.Tx, t Table) (Table, error) {
	t.VersionToken = newVersionToken()
	t.ModifiedAt = s.now().UTC()
	if _, err := tx.ExecContext(ctx, `UPDATE tables SET location = ?, state = ?, metadata_location = ?, properties = ?,
		version_token = ?, modified_at = ? WHERE id = ?`,
		t.Location, string(t.State), t.MetadataLocation, encodeMap(t.Properties), t.VersionToken,
		micros(t.ModifiedAt), t.ID); err != nil {
		return Table{}, dbErr("update table", err)
	}
	return t, nil
}

// RegisterTable records an existing Lance dataset at a location. overwrite
// repoints an existing entry (never deleting data); without it an existing
// visible entry is ErrAlreadyExists. A deregistered entry is revived with
// its table id.
func (s *Store) RegisterTable(ctx context.Context, ref TableRef, location string, overwrite bool) (Table, error) {
	if err := validateRef(ref); err != nil {
		return Table{}, err
	}
	loc := resolveLocation(location)
	if loc == "" {
		return Table{}, Invalid("location", "location is required: give the directory of an existing Lance dataset")
	}
	if why := s.protectedLocation(loc); why != "" {
		return Table{}, Invalid("location", fmt.Sprintf("location %q cannot hold a table: %s", loc, why))
	}
	var t Table
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		b, err := s.getBucket(ctx, tx, ref.Bucket)
		if err != nil {
			return err
		}
		if err := checkBucketAccepts(b, FormatLance); err != nil {
			return err
		}
		if err := s.requireNamespace(ctx, tx, ref.Bucket, JoinNamespace(ref.Namespace)); err != nil {
			return err
		}
		existing, ok, err := s.findTable(ctx, tx, ref)
		if err != nil {
			return err
		}
		if !ok {
			t, err = s.insertTable(ctx, tx, CreateTableInput{TableRef: ref, Format: FormatLance, Location: loc}, loc)
			return err
		}
		if existing.Format != FormatLance {
			return formatConflict(ref, existing.Format)
		}
		if existing.State != StateDeregistered && !overwrite {
			return newErr(ErrAlreadyExists, "name",
				"table %q already exists in namespace %q of bucket %q; register with overwrite to repoint it (no data is deleted)",
				ref.Name, JoinNamespace(ref.Namespace), ref.Bucket)
		}
		t, err = s.revive(ctx, tx, existing, loc, false)
		return err
	})
	return t, err
}
