package iceberg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/google/uuid"
)

// Table returns the Iceberg table a reference names; a Lance table of the
// same name, or one still being created, does not exist as far as Iceberg
// is concerned.
func (s *Tables) Table(ctx context.Context, ref catalog.TableRef) (catalog.Table, error) {
	t, err := s.store.GetTable(ctx, ref)
	if err != nil {
		return t, fromCatalog(err, "table")
	}
	if t.Format != catalog.FormatIceberg || t.MetadataLocation == "" {
		return t, noSuchTable(ref)
	}
	return t, nil
}

// LoadTable returns a table's current metadata.
func (s *Tables) LoadTable(ctx context.Context, ref catalog.TableRef) (*Loaded, error) {
	t, err := s.Table(ctx, ref)
	if err != nil {
		return nil, err
	}
	m, err := s.readMetadata(ctx, t.MetadataLocation)
	if err != nil {
		return nil, fmt.Errorf("reading metadata of %s: %w", ref.Name, err)
	}
	return &Loaded{t.MetadataLocation, m.raw, m.md}, nil
}

func (s *Tables) defaultLocation(ref catalog.TableRef) (string, error) {
	loc := s.store.DefaultLocation(ref, catalog.FormatIceberg)
	if loc == "" {
		return "", fmt.Errorf("the catalog gave no location for %s", ref.Name)
	}
	return loc, nil
}

// CreateTable creates a table in a namespace of bucket b and writes its first
// metadata file, exactly as an engine's create through the REST catalog does.
// With in.StageCreate nothing is written and the returned metadata has no
// location.
func (s *Tables) CreateTable(ctx context.Context, b catalog.Bucket, ns []string, in CreateTableInput) (*Loaded, error) {
	if err := catalog.ValidateTableName(in.Name); err != nil {
		return nil, invalid("name", "table name %q: %v", in.Name, err)
	}
	ref := catalog.TableRef{Bucket: b.Name, Namespace: ns, Name: in.Name}
	if _, err := s.store.GetNamespace(ctx, b.Name, ns); err != nil {
		return nil, fromCatalog(err, "namespace")
	}
	if _, err := s.store.GetTable(ctx, ref); err == nil {
		return nil, newError(fault.AlreadyExists, "name", "table %q already exists in namespace %s", in.Name, catalog.JoinNamespace(ns))
	} else if !errors.Is(err, fault.NotFound) {
		return nil, err
	}
	loc := in.Location
	if loc == "" {
		var err error
		if loc, err = s.defaultLocation(ref); err != nil {
			return nil, err
		}
	} else if err := s.checkTableLocation(b.Name, loc); err != nil {
		return nil, err
	}
	md, err := newTableMetadata(in, loc, uuid.NewString(), s.now().UnixMilli())
	if err != nil {
		return nil, err
	}
	if in.StageCreate {
		raw, err := md.encode()
		if err != nil {
			return nil, err
		}
		return &Loaded{"", raw, md}, nil
	}
	return s.createEntry(ctx, ref, md, in.Location != "", in.Tags)
}

// DropTable removes a table from the catalog. With purge its files go too;
// without, every file stays for a later register. Either way the table is
// first recently deleted for its bucket's hold (undrop brings it back). An
// Iceberg entry that has no metadata file yet (declared through S3 Tables,
// or left by an older floe interrupted mid-create) can be dropped too, so
// no name is ever stuck listed but neither loadable, droppable nor
// creatable.
func (s *Tables) DropTable(ctx context.Context, ref catalog.TableRef, purge bool) error {
	_, err := s.DropTableWith(ctx, ref, purge, catalog.DropOptions{})
	return err
}

// DropTableWith is DropTable with the drop's options (force, who); purge
// decides opt.KeepData.
func (s *Tables) DropTableWith(ctx context.Context, ref catalog.TableRef, purge bool, opt catalog.DropOptions) (catalog.DeletedTable, error) {
	t, err := s.store.GetTable(ctx, ref)
	if err != nil {
		return catalog.DeletedTable{}, fromCatalog(err, "table")
	}
	if t.Format != catalog.FormatIceberg {
		return catalog.DeletedTable{}, noSuchTable(ref)
	}
	opt.KeepData = !purge
	d, err := s.store.DropTableWith(ctx, ref, opt)
	return d, fromCatalog(err, "table")
}

// UndropTable brings back a recently deleted Iceberg table as ref: the one
// with table id id, or (id "") the one most recently dropped under ref's
// name. It answers the table as LoadTable does.
func (s *Tables) UndropTable(ctx context.Context, ref catalog.TableRef, id string) (*Loaded, error) {
	var d catalog.DeletedTable
	var err error
	if id != "" {
		d, err = s.store.GetDeletedTable(ctx, id)
		if err == nil && d.Bucket != ref.Bucket {
			err = newError(fault.NotFound, "table", "no recently deleted table of bucket %q has table id %q", ref.Bucket, id)
		}
	} else {
		d, err = s.store.FindDeletedTable(ctx, ref)
	}
	if err == nil && d.Format != catalog.FormatIceberg {
		err = newError(fault.NotFound, "table", "recently deleted table %q is a Lance table; undrop it through the Lance REST, the console or floe table undrop", d.Name)
	}
	if err != nil {
		return nil, fromCatalog(err, "table")
	}
	if _, err := s.store.UndropTable(ctx, d.ID, ref); err != nil {
		return nil, err
	}
	if d.MetadataLocation == "" {
		return nil, newError(fault.NotFound, "table", "table %q is back, but it has no metadata file yet (it was declared and never committed)", ref.Name)
	}
	return s.LoadTable(ctx, ref)
}

// RenameTable moves a table to another name or namespace of its bucket.
func (s *Tables) RenameTable(ctx context.Context, from catalog.TableRef, toNamespace []string, toName string) error {
	return s.RenameTableWith(ctx, from, toNamespace, toName, false)
}

// RenameTableWith is RenameTable; force passes protection.
func (s *Tables) RenameTableWith(ctx context.Context, from catalog.TableRef, toNamespace []string, toName string, force bool) error {
	if err := catalog.ValidateTableName(toName); err != nil {
		return invalid("name", "table name %q: %v", toName, err)
	}
	if _, err := s.Table(ctx, from); err != nil {
		return err
	}
	if _, err := s.store.GetNamespace(ctx, from.Bucket, toNamespace); err != nil {
		return fromCatalog(err, "namespace")
	}
	_, err := s.store.RenameTableWith(ctx, from, toNamespace, toName, catalog.RenameOptions{Force: force})
	return fromCatalog(err, "table")
}

// RegisterTable adds a table whose metadata file already exists inside
// bucket b. With overwrite an existing Iceberg table of that name is
// pointed at the file instead.
func (s *Tables) RegisterTable(ctx context.Context, b catalog.Bucket, ref catalog.TableRef, metadataLocation string, overwrite bool) (*Loaded, error) {
	return s.RegisterTableWith(ctx, b, ref, metadataLocation, overwrite, false)
}

// RegisterTableWith is RegisterTable; force passes the protection of the
// table an overwrite repoints. Metadata of a recently deleted table is
// refused with a sentence pointing at undrop: registering it would make a
// second entry for data the first may still purge.
func (s *Tables) RegisterTableWith(ctx context.Context, b catalog.Bucket, ref catalog.TableRef, metadataLocation string, overwrite, force bool) (*Loaded, error) {
	if err := catalog.ValidateTableName(ref.Name); err != nil {
		return nil, invalid("name", "table name %q: %v", ref.Name, err)
	}
	if metadataLocation == "" {
		return nil, invalid("metadata-location", "register needs metadata-location")
	}
	// Check the path before reading anything: a client must not make the
	// server read files outside the bucket.
	if err := s.checkTableLocation(b.Name, metadataLocation); err != nil {
		return nil, err
	}
	m, err := readMetadataFile(s.files, metadataLocation)
	if err != nil {
		return nil, invalid("metadata-location", "cannot read table metadata at %s: %v", metadataLocation, err)
	}
	if err := m.md.checkLimits(); err != nil {
		return nil, invalid("metadata-location", "table metadata at %s: %v", metadataLocation, err)
	}
	if err := s.checkTableLocation(b.Name, m.md.Location); err != nil {
		return nil, err
	}
	if !within(metadataLocation, m.md.Location) {
		return nil, invalid("metadata-location", "metadata-location %s is outside the table location %s", metadataLocation, m.md.Location)
	}
	if _, err := s.store.GetNamespace(ctx, b.Name, ref.Namespace); err != nil {
		return nil, fromCatalog(err, "namespace")
	}
	if err := s.store.CheckNotRecentlyDeleted(ctx, m.md.Location); err != nil {
		return nil, err
	}
	existing, err := s.store.GetTable(ctx, ref)
	switch {
	case err == nil && (!overwrite || existing.Format != catalog.FormatIceberg):
		return nil, newError(fault.AlreadyExists, "name", "table %q already exists", ref.Name)
	case err == nil:
		if err := catalog.CheckTableProtection(existing, "overwrite", force); err != nil {
			return nil, err
		}
		if _, err := s.store.CommitTable(ctx, existing.ID, existing.VersionToken, metadataLocation, m.md.Properties); err != nil {
			if errors.Is(err, fault.Conflict) {
				return nil, commitFailed("table %s changed while it was re-registered; retry", ref.Name)
			}
			return nil, fromCatalog(err, "table")
		}
	case errors.Is(err, fault.NotFound):
		_, created, err := s.store.CreateTable(ctx, catalog.CreateTableInput{
			TableRef: ref, Format: catalog.FormatIceberg, Location: m.md.Location,
			MetadataLocation: metadataLocation, Properties: m.md.Properties,
		})
		if err != nil {
			return nil, fromCatalog(err, "namespace")
		}
		if !created {
			return nil, newError(fault.AlreadyExists, "name", "table %q already exists", ref.Name)
		}
	default:
		return nil, err
	}
	s.cache.put(metadataLocation, m)
	return &Loaded{metadataLocation, m.raw, m.md}, nil
}

// SetProtected protects an Iceberg table or lifts its protection with a
// commit that sets (or removes) the floe.protected property, so the
// metadata file, LoadTable and the catalog agree, and the next commit by
// an engine keeps it. The caller checks the manage privilege.
func (s *Tables) SetProtected(ctx context.Context, b catalog.Bucket, ref catalog.TableRef, on bool) (*Loaded, error) {
	var up map[string]any
	if on {
		up = map[string]any{"action": "set-properties", "updates": map[string]string{catalog.ProtectedProperty: "true"}}
	} else {
		up = map[string]any{"action": "remove-properties", "removals": []string{catalog.ProtectedProperty}}
	}
	raw, err := json.Marshal(up)
	if err != nil {
		return nil, err
	}
	return s.Commit(ctx, b, ref, CommitInput{Updates: []json.RawMessage{raw}})
}
