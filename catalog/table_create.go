package catalog

import (
	"context"
	"fmt"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/warehouse"
	"github.com/google/uuid"

	"github.com/floe/floe/persist"
)

// checkBucketAccepts refuses a table format the bucket was not declared for.
func checkBucketAccepts(b Bucket, f Format) error {
	if b.Format == FormatUnset || b.Format == f {
		return nil
	}
	return newErr(fault.Conflict, "format",
		"bucket %q is declared for %s tables and refuses %s tables; use a bucket declared %s (or one with no declared format)",
		b.Name, b.Format, f, f)
}

func formatConflict(ref TableRef, existing Format) error {
	return newErr(fault.Conflict, "name",
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
// the same format is idempotent (created=false); another format is fault.Conflict;
// a bucket declared for the other format is fault.Conflict; missing namespace is
// fault.NotFound. A deregistered Lance table comes back as declared/created
// (created=true, same table id).
func (s *Store) CreateTable(ctx context.Context, in CreateTableInput) (t Table, created bool, err error) {
	explicit, err := checkCreateInput(in)
	if err != nil {
		return Table{}, false, err
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
		if !explicit.IsZero() {
			if err := s.checkPlacement(in.Bucket, explicit); err != nil {
				return err
			}
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
				loc := explicit
				if loc.IsZero() {
					if loc, err = warehouse.Parse(existing.Location); err != nil {
						return Invalid("location", err.Error())
					}
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
	s.tableChanged(t.ID)
	if created {
		s.tableEvent(TableEvent{Kind: TableCreated, Table: t})
	}
	return t, created, nil
}

// checkCreateInput validates what CreateTable is given before it reads
// anything, and resolves an explicit location.
func checkCreateInput(in CreateTableInput) (warehouse.Location, error) {
	if err := validateRef(in.TableRef); err != nil {
		return warehouse.Location{}, err
	}
	if in.Format != FormatLance && in.Format != FormatIceberg {
		return warehouse.Location{}, Invalid("format", "table format must be LANCE or ICEBERG")
	}
	if err := validateTags(in.Tags); err != nil {
		return warehouse.Location{}, err
	}
	if err := checkProtectedValue(in.Properties); err != nil {
		return warehouse.Location{}, err
	}
	return resolveLocation(in.Location)
}

// insertTable adds a new entry and prepares its storage.
func (s *Store) insertTable(ctx context.Context, tx *persist.Tx, in CreateTableInput, explicit warehouse.Location) (Table, error) {
	t, loc, err := s.planTable(ctx, tx, in, explicit)
	if err != nil {
		return Table{}, err
	}
	if err := s.prepareTable(ctx, &t, loc, in.FirstMetadata); err != nil {
		return Table{}, err
	}
	return t, s.recordTable(ctx, tx, t, in.Tags)
}

// planTable settles a new table's id and location and checks that both are
// free; it touches no storage.
func (s *Store) planTable(ctx context.Context, tx *persist.Tx, in CreateTableInput, explicit warehouse.Location) (Table, warehouse.Location, error) {
	id := uuid.NewString()
	loc, check := explicit, true
	if loc.IsZero() {
		loc = s.defaultLocation(in.TableRef, in.Format)
		// A table renamed away keeps its data at its old default location;
		// a new table of that name gets a location of its own.
		users, err := s.locationUsers(ctx, tx, loc, id)
		if err != nil {
			return Table{}, loc, err
		}
		// So does a dropped table held recently deleted: its name is free,
		// its directory is not.
		held, err := s.deletedLocationUsers(ctx, tx, loc, id)
		if err != nil {
			return Table{}, loc, err
		}
		// The default location found free needs no second look.
		check = len(users) > 0 || len(held) > 0
		if check {
			loc = s.tableDir(in.TableRef, in.Format, "-"+id[:8])
		}
	}
	if check {
		if err := s.checkFree(ctx, tx, loc, id); err != nil {
			return Table{}, loc, err
		}
	}
	if err := nameFreeOfViews(ctx, tx, in.TableRef); err != nil {
		return Table{}, loc, err
	}
	now := s.now().UTC()
	t := Table{
		ID: id, Bucket: in.Bucket, Namespace: append([]string(nil), in.Namespace...), Name: in.Name,
		Format: in.Format, ARN: s.tableARN(in.Bucket, id), Location: loc.String(),
		MetadataLocation: in.MetadataLocation, VersionToken: newVersionToken(),
		Properties: map[string]string{}, CreatedAt: now, ModifiedAt: now,
	}
	if t.Format == FormatLance {
		t.State = StateDeclared
	}
	for k, v := range in.Properties {
		t.Properties[k] = v
	}
	return t, loc, nil
}

// prepareTable makes a new table's directory, writes its first metadata
// (Iceberg, when asked) and, for Lance, finds whether a dataset is already
// there (state created) and writes the .lance-reserved marker.
func (s *Store) prepareTable(ctx context.Context, t *Table, loc warehouse.Location, first func(context.Context, string) (string, error)) error {
	if err := s.wh.MkdirAll(ctx, loc); err != nil {
		return storageErr("create table directory", err)
	}
	if first != nil {
		ml, err := first(ctx, t.Location)
		if err != nil {
			return err
		}
		t.MetadataLocation = ml
	}
	if t.Format == FormatLance {
		if ok, _ := s.wh.Exists(ctx, join(loc, versionsDir)); ok {
			t.State = StateCreated
		}
		if err := s.wh.WriteFile(ctx, join(loc, markerReserved), s.marker(*t)); err != nil {
			return storageErr("write "+markerReserved, err)
		}
	}
	return nil
}

// recordTable inserts a planned table's row (and its tags).
func (s *Store) recordTable(ctx context.Context, tx *persist.Tx, t Table, tags map[string]string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO tables(`+tableColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.Bucket, JoinNamespace(t.Namespace), t.Name, string(t.Format), t.Location, t.MetadataLocation,
		t.VersionToken, string(t.State), encodeMap(t.Properties), micros(t.CreatedAt), micros(t.ModifiedAt)); err != nil {
		if s.isUniqueViolation(err) {
			return newErr(fault.AlreadyExists, "name", "table %q already exists", t.Name)
		}
		return dbErr("insert table", err)
	}
	if len(tags) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE tables SET tags = ? WHERE id = ?`, encodeMap(tags), t.ID); err != nil {
			return dbErr("tag table", err)
		}
	}
	return nil
}

// marker is the content of a marker file: enough for a person looking at
// storage to find the entry.
func (s *Store) marker(t Table) []byte {
	return fmt.Appendf(nil, "table_id=%s\nbucket=%s\nnamespace=%s\nname=%s\ntime=%s\n",
		t.ID, t.Bucket, JoinNamespace(t.Namespace), t.Name, s.now().UTC().Format("2006-01-02T15:04:05Z"))
}

// revive brings a deregistered Lance table back at loc with its table id:
// state declared (created when _versions/ exists), a new version token, and
// a .lance-deregistered marker an older floe wrote removed. declare also
// writes .lance-reserved.
func (s *Store) revive(ctx context.Context, tx *persist.Tx, t Table, loc warehouse.Location, declare bool) (Table, error) {
	if err := s.checkFree(ctx, tx, loc, t.ID); err != nil {
		return Table{}, err
	}
	if err := s.wh.MkdirAll(ctx, loc); err != nil {
		return Table{}, storageErr("create table directory", err)
	}
	if old, err := warehouse.Parse(t.Location); err == nil {
		_ = s.wh.Delete(ctx, join(old, markerDeregistered))
	}
	if err := s.wh.Delete(ctx, join(loc, markerDeregistered)); err != nil {
		return Table{}, storageErr("remove "+markerDeregistered, err)
	}
	t.Location = loc.String()
	t.State = StateDeclared
	if ok, _ := s.wh.Exists(ctx, join(loc, versionsDir)); ok {
		t.State = StateCreated
	}
	if declare {
		if err := s.wh.WriteFile(ctx, join(loc, markerReserved), s.marker(t)); err != nil {
			return Table{}, storageErr("write "+markerReserved, err)
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
// visible entry is fault.AlreadyExists. A deregistered entry is revived with
// its table id.
func (s *Store) RegisterTable(ctx context.Context, ref TableRef, location string, overwrite bool) (Table, error) {
	return s.RegisterTableWith(ctx, ref, location, overwrite, false)
}

// RegisterTableWith is RegisterTable; an overwrite of a protected table
// needs force.
func (s *Store) RegisterTableWith(ctx context.Context, ref TableRef, location string, overwrite, force bool) (Table, error) {
	if err := validateRef(ref); err != nil {
		return Table{}, err
	}
	loc, err := resolveLocation(location)
	if err != nil {
		return Table{}, err
	}
	if loc.IsZero() {
		return Table{}, Invalid("location", "location is required: give the directory of an existing Lance dataset")
	}
	var t Table
	err = s.inTx(ctx, func(tx *persist.Tx) error {
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
		if ok && existing.Format != FormatLance {
			return formatConflict(ref, existing.Format)
		}
		if err := s.checkPlacement(ref.Bucket, loc); err != nil {
			return err
		}
		if !ok {
			t, err = s.insertTable(ctx, tx, CreateTableInput{TableRef: ref, Format: FormatLance, Location: loc.String()}, loc)
			return err
		}
		if existing.State != StateDeregistered && !overwrite {
			return newErr(fault.AlreadyExists, "name",
				"table %q already exists in namespace %q of bucket %q; register with overwrite to repoint it (no data is deleted)",
				ref.Name, JoinNamespace(ref.Namespace), ref.Bucket)
		}
		if existing.State != StateDeregistered && existing.Location != loc.String() {
			if err := checkTableProtection(existing, "overwrite", force); err != nil {
				return err
			}
		}
		t, err = s.revive(ctx, tx, existing, loc, false)
		return err
	})
	if err == nil {
		s.tableChanged(t.ID)
		s.tableEvent(TableEvent{Kind: TableCreated, Table: t})
	}
	return t, err
}

// checkFree refuses a location that overlaps another table's: equal to it,
// inside it or around it, since dropping either would delete the other's
// data.
func (s *Store) checkFree(ctx context.Context, q querier, loc warehouse.Location, id string) error {
	users, err := s.locationUsers(ctx, q, loc, id)
	if err != nil {
		return err
	}
	if len(users) == 0 {
		held, err := s.deletedLocationUsers(ctx, q, loc, id)
		if err != nil || len(held) == 0 {
			return err
		}
		return heldLocationErr(loc, held[0])
	}
	u := users[0]
	how := "is inside or around"
	if u.Location == loc.String() {
		how = "is"
	}
	return newErr(fault.Conflict, "location",
		"location %s %s the data of table %q in namespace %q of bucket %q (%s); pick a location of its own",
		loc, how, u.Name, JoinNamespace(u.Namespace), u.Bucket, u.Location)
}
