package iceberg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/warehouse"
)

// CreateViewInput is a new view: the body of the REST catalog's
// POST …/namespaces/{ns}/views. Location may be empty (the catalog picks one).
type CreateViewInput struct {
	Name        string            `json:"name"`
	Location    string            `json:"location"`
	Schema      *Schema           `json:"schema"`
	ViewVersion *ViewVersion      `json:"view-version"`
	Properties  map[string]string `json:"properties"`
}

// LoadedView is a view's metadata as a load, create or commit answers it.
type LoadedView struct {
	MetadataLocation string
	// Metadata is the file's JSON, as the REST spec returns it.
	Metadata json.RawMessage
	md       *viewMetadata
}

// ViewInfo is what the console shows of a view.
type ViewInfo struct {
	UUID             string
	Location         string
	CurrentVersionID int64
	// Versions, newest first.
	Versions   []ViewVersion
	Log        []ViewLogEntry
	Columns    []Column // the current version's schema, flattened as the table page shows it
	Dialects   []string
	Properties map[string]string
}

// Info summarizes the view for display.
func (l *LoadedView) Info() ViewInfo {
	var cols []Column
	flatten(l.md.currentSchema().Fields, "", 0, &cols, map[int]string{})
	vs := slices.Clone(l.md.Versions)
	slices.SortFunc(vs, func(a, b ViewVersion) int { return int(b.VersionID - a.VersionID) })
	return ViewInfo{
		UUID: l.md.ViewUUID, Location: l.md.Location, CurrentVersionID: l.md.CurrentVersionID,
		Versions: vs, Log: slices.Clone(l.md.VersionLog), Columns: cols,
		Dialects: l.md.dialects(), Properties: l.md.Properties,
	}
}

// View returns the catalog entry of a view.
func (s *Tables) View(ctx context.Context, ref catalog.TableRef) (catalog.View, error) {
	v, err := s.store.GetView(ctx, ref)
	return v, fromCatalog(err, "view")
}

// ListViews lists the views of a namespace, one page at a time.
func (s *Tables) ListViews(ctx context.Context, bucket string, ns []string, opt catalog.ListOptions) ([]catalog.View, string, error) {
	items, next, err := s.store.ListViews(ctx, bucket, ns, opt)
	return items, next, fromCatalog(err, "namespace")
}

// LoadView returns a view's current metadata.
func (s *Tables) LoadView(ctx context.Context, ref catalog.TableRef) (*LoadedView, error) {
	v, err := s.View(ctx, ref)
	if err != nil {
		return nil, err
	}
	return s.readView(v.MetadataLocation)
}

func (s *Tables) readView(loc string) (*LoadedView, error) {
	return readViewFile(s.files, loc)
}

// LoadViewInfo reads a view's current metadata for the console.
func LoadViewInfo(wh *warehouse.Warehouse, v catalog.View) (ViewInfo, error) {
	l, err := readViewFile(warehouseFiles{wh}, v.MetadataLocation)
	if err != nil {
		return ViewInfo{}, err
	}
	return l.Info(), nil
}

func readViewFile(files fileStore, loc string) (*LoadedView, error) {
	raw, err := files.ReadFile(loc)
	if err != nil {
		return nil, fmt.Errorf("reading view metadata %s: %w", loc, err)
	}
	var md viewMetadata
	if err := json.Unmarshal(raw, &md); err != nil {
		return nil, fmt.Errorf("parsing view metadata %s: %w", loc, err)
	}
	return &LoadedView{loc, raw, &md}, nil
}

// CreateView creates a view in a namespace of bucket b: its first metadata
// file (version 1, current) is written, then the catalog entry made. A name
// held by a table or a view is fault.AlreadyExists.
func (s *Tables) CreateView(ctx context.Context, b catalog.Bucket, ns []string, in CreateViewInput) (*LoadedView, error) {
	if err := catalog.ValidateTableName(in.Name); err != nil {
		return nil, invalid("name", "view name %q: %v", in.Name, err)
	}
	if in.Schema == nil {
		return nil, invalid("schema", "create view needs a schema")
	}
	if in.ViewVersion == nil {
		return nil, invalid("view-version", "create view needs a view-version")
	}
	ref := catalog.TableRef{Bucket: b.Name, Namespace: ns, Name: in.Name}
	if _, err := s.store.GetNamespace(ctx, b.Name, ns); err != nil {
		return nil, fromCatalog(err, "namespace")
	}
	// Say "exists" before writing anything; the catalog checks again when
	// it inserts the entry.
	if _, err := s.store.GetView(ctx, ref); err == nil {
		return nil, newError(fault.AlreadyExists, "name", "view %q already exists in namespace %s", in.Name, catalog.JoinNamespace(ns))
	}
	if t, err := s.store.GetTable(ctx, ref); err == nil {
		return nil, newError(fault.AlreadyExists, "name", "a table named %q (%s) already exists in namespace %s; a table and a view never share a name",
			in.Name, t.Format, catalog.JoinNamespace(ns))
	}
	loc := in.Location
	if loc == "" {
		var err error
		if loc, err = s.store.DefaultViewLocation(ctx, ref); err != nil {
			return nil, err
		}
	} else if err := s.checkTableLocation(b.Name, loc); err != nil {
		return nil, err
	}
	nowMs := s.now().UnixMilli()
	schema := *in.Schema
	schema.SchemaID = 0
	if err := checkViewSchema(schema); err != nil {
		return nil, invalid("schema", "%v", err)
	}
	version := *in.ViewVersion
	version.VersionID = 1
	version.SchemaID = 0
	if version.TimestampMs == 0 {
		version.TimestampMs = nowMs
	}
	if version.Summary == nil {
		version.Summary = map[string]string{}
	}
	if err := checkViewVersion(version); err != nil {
		return nil, invalid("view-version", "%v", err)
	}
	md := &viewMetadata{
		ViewUUID: uuid.NewString(), FormatVersion: viewFormatVersion, Location: canonical(loc),
		CurrentVersionID: 1, Versions: []ViewVersion{version},
		VersionLog: []ViewLogEntry{{VersionID: 1, TimestampMs: version.TimestampMs}},
		Schemas:    []Schema{schema}, Properties: in.Properties,
	}
	if _, err := md.historyLimit(); err != nil {
		return nil, invalid("properties", "%v", err)
	}
	res, err := s.writeViewMetadata(md, 0)
	if err != nil {
		return nil, err
	}
	if _, err := s.store.CreateView(ctx, catalog.CreateViewInput{TableRef: ref, Location: md.Location, MetadataLocation: res.MetadataLocation}); err != nil {
		s.files.Remove(res.MetadataLocation)
		return nil, fromCatalog(err, "namespace")
	}
	return res, nil
}

// canonical spells a location the way the warehouse does; one that does not
// parse is left for the placement check to refuse.
func canonical(loc string) string {
	if l, err := warehouse.Parse(loc); err == nil {
		return l.String()
	}
	return loc
}

// CommitView checks a commit's requirements against the view's current
// metadata, applies its updates and swaps the new metadata file in. A failed
// requirement or a lost race is fault.CommitFailed.
func (s *Tables) CommitView(ctx context.Context, b catalog.Bucket, ref catalog.TableRef, in ViewCommitInput) (*LoadedView, error) {
	reqs, ups, err := parseViewCommit(in)
	if err != nil {
		return nil, err
	}
	v, err := s.View(ctx, ref)
	if err != nil {
		return nil, err
	}
	cur, err := s.readView(v.MetadataLocation)
	if err != nil {
		return nil, err
	}
	for _, q := range reqs {
		if *q.UUID != cur.md.ViewUUID {
			return nil, commitFailed("requirement failed: view %s has uuid %s, not %s", ref.Name, cur.md.ViewUUID, *q.UUID)
		}
	}
	bl := newViewBuilder(cur.md, s.now().UnixMilli(), func(loc string) error { return s.checkTableLocation(b.Name, loc) })
	for i, u := range ups {
		if err := bl.apply(i, u); err != nil {
			return nil, err
		}
	}
	md, err := bl.finish()
	if err != nil {
		return nil, err
	}
	n, _ := metadataVersion(v.MetadataLocation)
	res, err := s.writeViewMetadata(md, n+1)
	if err != nil {
		return nil, err
	}
	if _, err := s.store.CommitView(ctx, v.ID, v.VersionToken, res.MetadataLocation); err != nil {
		s.files.Remove(res.MetadataLocation)
		if errors.Is(err, fault.Conflict) {
			return nil, commitFailed("view %s changed while this commit was applied; reload it and retry", ref.Name)
		}
		return nil, fromCatalog(err, "view")
	}
	return res, nil
}

// DropView removes a view from the catalog; its metadata files stay (the
// spec's drop has no purge for views; register-view can bring it back).
func (s *Tables) DropView(ctx context.Context, ref catalog.TableRef) error {
	_, err := s.store.DropView(ctx, ref)
	return fromCatalog(err, "view")
}

// RenameView moves a view to another name or namespace of its bucket.
func (s *Tables) RenameView(ctx context.Context, from catalog.TableRef, toNamespace []string, toName string) error {
	if err := catalog.ValidateTableName(toName); err != nil {
		return invalid("name", "view name %q: %v", toName, err)
	}
	if _, err := s.View(ctx, from); err != nil {
		return err
	}
	_, err := s.store.RenameView(ctx, from, toNamespace, toName)
	return fromCatalog(err, "namespace")
}

// RegisterView adds a view whose metadata file already exists inside bucket b.
func (s *Tables) RegisterView(ctx context.Context, b catalog.Bucket, ref catalog.TableRef, metadataLocation string) (*LoadedView, error) {
	if err := catalog.ValidateTableName(ref.Name); err != nil {
		return nil, invalid("name", "view name %q: %v", ref.Name, err)
	}
	if metadataLocation == "" {
		return nil, invalid("metadata-location", "register-view needs metadata-location")
	}
	// Check the path before reading: a client must not make the server read
	// files outside the bucket.
	if err := s.checkTableLocation(b.Name, metadataLocation); err != nil {
		return nil, err
	}
	res, err := s.readView(metadataLocation)
	if err != nil {
		return nil, invalid("metadata-location", "cannot read view metadata at %s", metadataLocation)
	}
	if err := res.md.validate(); err != nil {
		return nil, invalid("metadata-location", "view metadata at %s: %v", metadataLocation, err)
	}
	if err := s.checkTableLocation(b.Name, res.md.Location); err != nil {
		return nil, err
	}
	if !within(metadataLocation, res.md.Location) {
		return nil, invalid("metadata-location", "metadata-location %s is outside the view location %s", metadataLocation, res.md.Location)
	}
	if _, err := s.store.CreateView(ctx, catalog.CreateViewInput{TableRef: ref, Location: res.md.Location, MetadataLocation: metadataLocation}); err != nil {
		return nil, fromCatalog(err, "namespace")
	}
	res.MetadataLocation = canonical(metadataLocation)
	return res, nil
}

// writeViewMetadata writes md as <location>/metadata/NNNNN-<uuid>.metadata.json.
func (s *Tables) writeViewMetadata(md *viewMetadata, version int) (*LoadedView, error) {
	raw, err := md.encode()
	if err != nil {
		return nil, err
	}
	loc, err := joinLoc(md.Location, "metadata", fmt.Sprintf("%05d-%s.metadata.json", version, uuid.NewString()))
	if err != nil {
		return nil, invalid("location", "view location: %v", err)
	}
	if err := s.files.CreateExclusive(loc, raw); err != nil {
		if warehouse.IsClientError(err) {
			return nil, invalid("location", "%v", err)
		}
		return nil, fmt.Errorf("writing view metadata %s: %w", loc, err)
	}
	return &LoadedView{loc, raw, md}, nil
}
