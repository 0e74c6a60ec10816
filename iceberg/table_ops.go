package iceberg

import (
	"context"
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
// without, every file stays for a later register. An Iceberg entry that has
// no metadata file yet (declared through S3 Tables, or left by an older
// floe interrupted mid-create) can be dropped too, so no name is ever stuck
// listed but neither loadable, droppable nor creatable.
func (s *Tables) DropTable(ctx context.Context, ref catalog.TableRef, purge bool) error {
	t, err := s.store.GetTable(ctx, ref)
	if err != nil {
		return fromCatalog(err, "table")
	}
	if t.Format != catalog.FormatIceberg {
		return noSuchTable(ref)
	}
	if purge {
		_, err = s.store.DropTable(ctx, ref)
	} else {
		_, err = s.store.ForgetTable(ctx, ref)
	}
	return fromCatalog(err, "table")
}

// RenameTable moves a table to another name or namespace of its bucket.
func (s *Tables) RenameTable(ctx context.Context, from catalog.TableRef, toNamespace []string, toName string) error {
	if err := catalog.ValidateTableName(toName); err != nil {
		return invalid("name", "table name %q: %v", toName, err)
	}
	if _, err := s.Table(ctx, from); err != nil {
		return err
	}
	if _, err := s.store.GetNamespace(ctx, from.Bucket, toNamespace); err != nil {
		return fromCatalog(err, "namespace")
	}
	_, err := s.store.RenameTable(ctx, from, toNamespace, toName)
	return fromCatalog(err, "table")
}

// RegisterTable adds a table whose metadata file already exists inside
// bucket b. With overwrite an existing Iceberg table of that name is
// pointed at the file instead.
func (s *Tables) RegisterTable(ctx context.Context, b catalog.Bucket, ref catalog.TableRef, metadataLocation string, overwrite bool) (*Loaded, error) {
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
	existing, err := s.store.GetTable(ctx, ref)
	switch {
	case err == nil && (!overwrite || existing.Format != catalog.FormatIceberg):
		return nil, newError(fault.AlreadyExists, "name", "table %q already exists", ref.Name)
	case err == nil:
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
