package iceberg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/warehouse"
	"github.com/google/uuid"
)

// CommitInput is the body of the REST catalog's POST …/tables/{table} (and
// one entry of a transaction): requirements and updates in the spec's JSON.
type CommitInput struct {
	Identifier *struct {
		Namespace []string `json:"namespace"`
		Name      string   `json:"name"`
	} `json:"identifier"`
	Requirements []json.RawMessage `json:"requirements"`
	Updates      []json.RawMessage `json:"updates"`
}

// maxPreviousVersions bounds the metadata log when the table does not set
// write.metadata.previous-versions-max (the spec's default).
const maxPreviousVersions = 100

// Commit checks the requirements against the current metadata, applies the
// updates, writes the next metadata file and swaps it in with the catalog's
// version token, so of two racing commits exactly one wins. A commit that
// asserts create on a missing table creates it (a staged create finishing).
func (s *Tables) Commit(ctx context.Context, b catalog.Bucket, ref catalog.TableRef, req CommitInput) (*Loaded, error) {
	reqs, err := parseRequirements(req.Requirements)
	if err != nil {
		return nil, err
	}
	ups, err := parseUpdates(req.Updates)
	if err != nil {
		return nil, err
	}
	create := false
	for _, q := range reqs {
		create = create || q.Type == "assert-create"
	}
	t, err := s.store.GetTable(ctx, ref)
	switch {
	case errors.Is(err, catalog.ErrNotFound) && create:
		return s.commitCreate(ctx, b, ref, reqs, ups)
	case errors.Is(err, catalog.ErrNotFound):
		return nil, fromCatalog(err, "table")
	case err != nil:
		return nil, err
	case t.Format != catalog.FormatIceberg:
		if create {
			return nil, commitFailed("the name %q is taken by a %s table", ref.Name, t.Format)
		}
		return nil, noSuchTable(ref)
	case t.MetadataLocation == "": // being created right now
		if create {
			return nil, commitFailed("table %q is being created by another request", ref.Name)
		}
		return nil, noSuchTable(ref)
	}
	base, err := s.readMetadata(ctx, t.MetadataLocation)
	if err != nil {
		return nil, fmt.Errorf("reading current metadata of %s: %w", ref.Name, err)
	}
	for _, q := range reqs {
		if err := q.check(base.md); err != nil {
			return nil, commitFailed("requirement failed: %v", err)
		}
	}
	if len(ups) == 0 {
		return &Loaded{t.MetadataLocation, base.raw, base.md}, nil
	}
	next, err := s.applyUpdates(b, base.md, ups)
	if err != nil {
		return nil, err
	}
	version, ok := metadataVersion(t.MetadataLocation)
	if !ok {
		version = len(base.md.MetadataLog)
	}
	next.MetadataLog = append(next.MetadataLog, MetadataLogEntry{TimestampMs: base.md.LastUpdatedMs, MetadataFile: t.MetadataLocation})
	keep := maxPreviousVersions
	if v, err := strconv.Atoi(next.Properties["write.metadata.previous-versions-max"]); err == nil && v >= 1 {
		keep = v
	}
	if over := len(next.MetadataLog) - keep; over > 0 {
		next.MetadataLog = next.MetadataLog[over:]
	}
	res, err := s.writeMetadata(next, version+1)
	if err != nil {
		return nil, err
	}
	if _, err := s.store.CommitTable(ctx, t.ID, t.VersionToken, res.MetadataLocation, next.Properties); err != nil {
		s.files.Remove(res.MetadataLocation) // ours alone: never referenced by the catalog
		if errors.Is(err, catalog.ErrConflict) {
			return nil, commitFailed("table %s was changed by another commit; reload it and retry", ref.Name)
		}
		return nil, fromCatalog(err, "table")
	}
	s.cache.put(res.MetadataLocation, &cachedMetadata{res.Metadata, next})
	return res, nil
}

// commitCreate finishes a staged create: the table appears only now, built
// from empty metadata by the commit's updates.
func (s *Tables) commitCreate(ctx context.Context, b catalog.Bucket, ref catalog.TableRef, reqs []requirement, ups []update) (*Loaded, error) {
	for _, q := range reqs {
		if err := q.check(nil); err != nil {
			return nil, commitFailed("requirement failed: %v", err)
		}
	}
	loc, err := s.defaultLocation(ref)
	if err != nil {
		return nil, err
	}
	empty := &tableMetadata{
		FormatVersion:     maxFormatVersion,
		Location:          loc,
		LastPartitionID:   unpartitionedLastID,
		CurrentSnapshotID: -1,
		Properties:        map[string]string{},
		Refs:              map[string]SnapshotRef{},
	}
	md, err := s.applyUpdates(b, empty, ups)
	if err != nil {
		return nil, err
	}
	if len(md.Schemas) == 0 {
		return nil, invalid("updates", "a create commit must add a schema")
	}
	if _, ok := md.schema(md.CurrentSchemaID); !ok {
		return nil, invalid("updates", "a create commit must set the current schema")
	}
	if len(md.PartitionSpecs) == 0 {
		md.PartitionSpecs = []PartitionSpec{{SpecID: 0, Fields: []PartitionField{}}}
	}
	if len(md.SortOrders) == 0 {
		md.SortOrders = []SortOrder{{OrderID: 0, Fields: []SortField{}}}
	}
	if md.TableUUID == "" {
		md.TableUUID = uuid.NewString()
	}
	return s.createEntry(ctx, ref, md, true)
}

// createEntry makes the catalog entry, then writes the first metadata file
// under the location the catalog gave and swaps it in. explicitLoc keeps
// md.Location (a staged create already told the client where to write).
// If anything fails after the entry exists, the entry is forgotten again.
func (s *Tables) createEntry(ctx context.Context, ref catalog.TableRef, md *tableMetadata, explicitLoc bool) (*Loaded, error) {
	in := catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatIceberg, Properties: md.Properties}
	if explicitLoc {
		in.Location = md.Location
	}
	t, created, err := s.store.CreateTable(ctx, in)
	if err != nil {
		return nil, fromCatalog(err, "namespace")
	}
	if !created {
		return nil, newError(ErrAlreadyExists, "name", "table %q already exists", ref.Name)
	}
	md.Location = t.Location
	res, err := s.writeMetadata(md, 0)
	if err == nil {
		_, err = s.store.CommitTable(ctx, t.ID, t.VersionToken, res.MetadataLocation, md.Properties)
		if err != nil {
			s.files.Remove(res.MetadataLocation)
		}
	}
	if err != nil {
		if _, ferr := s.store.ForgetTable(ctx, ref); ferr != nil {
			s.log.Error("iceberg: undoing a failed create", "table", ref.String(), "err", ferr)
		}
		return nil, fromCatalog(err, "table")
	}
	s.cache.put(res.MetadataLocation, &cachedMetadata{res.Metadata, md})
	return res, nil
}

func (s *Tables) applyUpdates(b catalog.Bucket, base *tableMetadata, ups []update) (*tableMetadata, error) {
	bl := &builder{
		md:             base.clone(),
		nowMs:          s.now().UnixMilli(),
		addedSnapshots: map[int64]int64{},
		checkLocation:  func(loc string) error { return s.checkTableLocation(b.Name, loc) },
	}
	for i, u := range ups {
		if err := bl.apply(i, u); err != nil {
			return nil, err
		}
	}
	md := bl.md
	md.LastUpdatedMs = max(bl.nowMs, base.LastUpdatedMs)
	// A snapshot's own time is the table's update time, as writers expect,
	// but never earlier than the metadata it replaces (readers check).
	for _, ts := range bl.addedSnapshots {
		md.LastUpdatedMs = max(ts, base.LastUpdatedMs)
	}
	return md, nil
}

// checkTableLocation keeps every location a client names where a table of
// the bucket may live (the warehouse package's placement rule); the catalog
// keeps it apart from every other table.
func (s *Tables) checkTableLocation(bucket, loc string) error {
	l, err := warehouse.Parse(loc)
	if err == nil {
		err = warehouse.CheckTablePlacement(s.store.BucketRoot(bucket), l)
	}
	if err != nil {
		return invalid("location", "%v", err)
	}
	return nil
}

// writeMetadata writes md as <location>/metadata/NNNNN-<uuid>.metadata.json.
func (s *Tables) writeMetadata(md *tableMetadata, version int) (*Loaded, error) {
	raw, err := md.encode()
	if err != nil {
		return nil, err
	}
	loc, err := joinLoc(md.Location, "metadata", fmt.Sprintf("%05d-%s.metadata.json", version, uuid.NewString()))
	if err != nil {
		return nil, invalid("location", "table location: %v", err)
	}
	if err := s.files.CreateExclusive(loc, raw); err != nil {
		if warehouse.IsClientError(err) {
			return nil, invalid("location", "%v", err)
		}
		return nil, fmt.Errorf("writing metadata %s: %w", loc, err)
	}
	return &Loaded{loc, raw, md}, nil
}
