package iceberg

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/warehouse"
	"github.com/google/uuid"
)

// maxPreviousVersions bounds the metadata log when the table does not set
// write.metadata.previous-versions-max (the spec's default).
const maxPreviousVersions = 100

// Commit checks the requirements against the current metadata, applies the
// updates, writes the next metadata file and swaps it in with the catalog's
// version token, so of two racing commits exactly one wins. A commit that
// asserts create on a missing table creates it (a staged create finishing).
func (s *Tables) Commit(ctx context.Context, b catalog.Bucket, ref catalog.TableRef, req CommitInput) (*Loaded, error) {
	if err := req.checkIdentifier(ref.Namespace, ref.Name); err != nil {
		return nil, err
	}
	reqs, ups, err := parseCommit(req)
	if err != nil {
		return nil, err
	}
	create := false
	for _, q := range reqs {
		create = create || q.Type == "assert-create"
	}
	t, err := s.store.GetTable(ctx, ref)
	if errors.Is(err, catalog.ErrNotFound) && create {
		return s.commitCreate(ctx, b, ref, reqs, ups)
	}
	p, err := s.prepareCommit(ctx, b, ref, t, err, create, reqs, ups)
	if err != nil || p.next == nil {
		return p.res, err
	}
	if _, err := s.store.CommitTable(ctx, p.table.ID, p.table.VersionToken, p.res.MetadataLocation, p.next.Properties); err != nil {
		s.files.Remove(p.res.MetadataLocation) // ours alone: never referenced by the catalog
		if errors.Is(err, catalog.ErrConflict) {
			return nil, commitFailed("table %s was changed by another commit; reload it and retry", ref.Name)
		}
		return nil, fromCatalog(err, "table")
	}
	s.cache.put(p.res.MetadataLocation, &cachedMetadata{p.res.Metadata, p.next})
	return p.res, nil
}

func parseCommit(req CommitInput) ([]requirement, []update, error) {
	if req.Updates == nil {
		return nil, nil, invalid("updates", `a commit needs "updates", an array of changes ([] to only check requirements)`)
	}
	reqs, err := parseRequirements(req.Requirements)
	if err != nil {
		return nil, nil, err
	}
	ups, err := parseUpdates(req.Updates)
	if err != nil {
		return nil, nil, err
	}
	return reqs, ups, nil
}

// pendingCommit is a table's next metadata, written but not yet swapped in.
// next is nil when the commit changes nothing (res is then the current
// metadata).
type pendingCommit struct {
	table catalog.Table
	res   *Loaded
	next  *tableMetadata
}

// prepareCommit checks the requirements against the table's current
// metadata (t, getErr: the catalog's answer for ref), applies the updates
// and writes the next metadata file under a fresh name. Nothing is visible
// until the caller swaps the pointer; a caller that does not must remove
// res.MetadataLocation.
func (s *Tables) prepareCommit(ctx context.Context, b catalog.Bucket, ref catalog.TableRef, t catalog.Table, getErr error, create bool, reqs []requirement, ups []update) (pendingCommit, error) {
	switch {
	case errors.Is(getErr, catalog.ErrNotFound):
		return pendingCommit{}, fromCatalog(getErr, "table")
	case getErr != nil:
		return pendingCommit{}, getErr
	case t.Format != catalog.FormatIceberg:
		if create {
			return pendingCommit{}, commitFailed("the name %q is taken by a %s table", ref.Name, t.Format)
		}
		return pendingCommit{}, noSuchTable(ref)
	case t.MetadataLocation == "": // being created right now
		if create {
			return pendingCommit{}, commitFailed("table %q is being created by another request", ref.Name)
		}
		return pendingCommit{}, noSuchTable(ref)
	}
	base, err := s.readMetadata(ctx, t.MetadataLocation)
	if err != nil {
		return pendingCommit{}, fmt.Errorf("reading current metadata of %s: %w", ref.Name, err)
	}
	for _, q := range reqs {
		if err := q.check(base.md); err != nil {
			return pendingCommit{}, commitFailed("requirement failed on table %s: %v", ref.Name, err)
		}
	}
	if len(ups) == 0 {
		return pendingCommit{table: t, res: &Loaded{t.MetadataLocation, base.raw, base.md}}, nil
	}
	next, err := s.applyUpdates(b, base.md, ups, false)
	if err != nil {
		return pendingCommit{}, err
	}
	version, ok := metadataVersion(t.MetadataLocation)
	if !ok {
		version = len(base.md.MetadataLog)
	}
	logPrevious(next, t.MetadataLocation, base.md.LastUpdatedMs)
	res, err := s.writeMetadata(next, version+1)
	if err != nil {
		return pendingCommit{}, err
	}
	return pendingCommit{table: t, res: res, next: next}, nil
}

// logPrevious records the metadata file next replaces in its metadata log,
// keeping the newest write.metadata.previous-versions-max entries.
func logPrevious(next *tableMetadata, prevLocation string, prevUpdatedMs int64) {
	next.MetadataLog = append(next.MetadataLog, MetadataLogEntry{TimestampMs: prevUpdatedMs, MetadataFile: prevLocation})
	keep := maxPreviousVersions
	if v, err := strconv.Atoi(next.Properties["write.metadata.previous-versions-max"]); err == nil && v >= 1 {
		keep = v
	}
	if over := len(next.MetadataLog) - keep; over > 0 {
		next.MetadataLog = next.MetadataLog[over:]
	}
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
	// The commit's upgrade-format-version says which version it wants;
	// without one the table gets the default.
	empty := &tableMetadata{
		FormatVersion:     defaultFormatVersion,
		Location:          loc,
		LastPartitionID:   unpartitionedLastID,
		CurrentSnapshotID: -1,
		Properties:        map[string]string{},
		Refs:              map[string]SnapshotRef{},
	}
	md, err := s.applyUpdates(b, empty, ups, true)
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

// applyUpdates builds the next metadata from base and a commit's updates;
// creating says base is a staged create's empty metadata. Refs an older
// floe stored unreadable are repaired on the way (see repairRefs), so the
// next commit of such a table leaves it loadable again.
func (s *Tables) applyUpdates(b catalog.Bucket, base *tableMetadata, ups []update, creating bool) (*tableMetadata, error) {
	bl := &builder{
		md:             base.clone(),
		nowMs:          s.now().UnixMilli(),
		addedSnapshots: map[int64]int64{},
		checkLocation:  func(loc string) error { return s.checkTableLocation(b.Name, loc) },
		creating:       creating,
	}
	repairRefs(bl.md)
	for i, u := range ups {
		if err := bl.apply(i, u); err != nil {
			return nil, err
		}
	}
	md := bl.md
	if err := checkProperties(md.Properties); err != nil {
		return nil, invalid("properties", "%v", err)
	}
	// Schemas added by this commit must fit the version the commit leaves
	// the table at (clients send upgrade-format-version first or last).
	known := map[int]bool{}
	for _, sc := range base.Schemas {
		known[sc.SchemaID] = true
	}
	for _, sc := range md.Schemas {
		if !known[sc.SchemaID] {
			if err := checkSchemaVersion(sc, md.FormatVersion); err != nil {
				return nil, invalid("schema", "%v", err)
			}
		}
	}
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
