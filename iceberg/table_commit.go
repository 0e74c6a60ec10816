package iceberg

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
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
	if errors.Is(err, fault.NotFound) && create {
		return s.commitCreate(ctx, b, ref, reqs, ups)
	}
	p, err := s.prepareCommit(ctx, b, ref, t, err, create, reqs, ups)
	if err != nil || p.next == nil {
		return p.res, err
	}
	if _, err := s.store.CommitTable(ctx, p.table.ID, p.table.VersionToken, p.res.MetadataLocation, p.next.Properties); err != nil {
		s.files.Remove(p.res.MetadataLocation) // ours alone: never referenced by the catalog
		if errors.Is(err, fault.Conflict) {
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
	case errors.Is(getErr, fault.NotFound):
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
	return s.createEntry(ctx, ref, md, true, nil)
}

// createEntry makes the catalog entry and its first metadata file in one
// step: the catalog calls back, inside its write transaction, to write the
// file under the location it settled on, and inserts the row with that
// metadata location. A crash or database outage in between leaves at most
// an unreferenced metadata file, never a name that lists but does not load.
// explicitLoc keeps md.Location (a staged create already told the client
// where to write). tags label the new entry.
func (s *Tables) createEntry(ctx context.Context, ref catalog.TableRef, md *tableMetadata, explicitLoc bool, tags map[string]string) (*Loaded, error) {
	in := catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatIceberg, Properties: md.Properties, Tags: tags}
	if explicitLoc {
		in.Location = md.Location
	}
	var (
		written  []*Loaded // every file written; a retried transaction writes again
		writeErr error
	)
	in.FirstMetadata = func(ctx context.Context, location string) (string, error) {
		md.Location = location
		ctx, cancel := context.WithTimeout(ctx, firstMetadataTimeout)
		defer cancel()
		res, err := s.writeMetadataIn(ctx, md, 0)
		if err != nil {
			writeErr = err
			return "", err
		}
		written = append(written, res)
		return res.MetadataLocation, nil
	}
	t, created, err := s.store.CreateTable(ctx, in)
	var kept *Loaded
	for _, w := range written {
		if err == nil && created && w.MetadataLocation == t.MetadataLocation {
			kept = w
			continue
		}
		// A file the catalog did not keep is removed, unless the outcome is
		// unknown (the database went away around the commit): then it may
		// be the table's, and an unreferenced file costs only its bytes.
		if err == nil || refusedBeforeCommit(err) {
			s.files.Remove(w.MetadataLocation)
		}
	}
	switch {
	case writeErr != nil:
		return nil, writeErr
	case err != nil:
		return nil, fromCatalog(err, "namespace")
	case !created:
		return nil, newError(fault.AlreadyExists, "name", "table %q already exists", ref.Name)
	case kept == nil:
		return nil, fmt.Errorf("iceberg: the catalog created %s without its first metadata file", ref.Name)
	}
	s.cache.put(kept.MetadataLocation, &cachedMetadata{kept.Metadata, md})
	return kept, nil
}

// firstMetadataTimeout bounds a create's first metadata write: it runs
// inside the catalog's write transaction, and every write of this process
// queues behind it, so a store that hangs fails the create instead.
const firstMetadataTimeout = 30 * time.Second

// contextCreator is a fileStore whose exclusive create can be bounded.
type contextCreator interface {
	CreateExclusiveContext(ctx context.Context, loc string, data []byte) error
}

// refusedBeforeCommit reports a catalog refusal (the name is taken, the
// namespace is missing, the location overlaps): nothing was committed. A
// database or storage fault may have struck around the commit instead.
func refusedBeforeCommit(err error) bool {
	for _, kind := range []error{fault.NotFound, fault.AlreadyExists, fault.Conflict, fault.NotEmpty, fault.Invalid} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return false
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
	return s.writeMetadataIn(context.Background(), md, version)
}

// writeMetadataIn is writeMetadata bounded by ctx where the store allows it.
func (s *Tables) writeMetadataIn(ctx context.Context, md *tableMetadata, version int) (*Loaded, error) {
	raw, err := md.encode()
	if err != nil {
		return nil, err
	}
	loc, err := joinLoc(md.Location, "metadata", fmt.Sprintf("%05d-%s.metadata.json", version, uuid.NewString()))
	if err != nil {
		return nil, invalid("location", "table location: %v", err)
	}
	create := s.files.CreateExclusive
	if cc, ok := s.files.(contextCreator); ok {
		create = func(loc string, data []byte) error { return cc.CreateExclusiveContext(ctx, loc, data) }
	}
	if err := create(loc, raw); err != nil {
		if warehouse.IsClientError(err) {
			return nil, invalid("location", "%v", err)
		}
		return nil, fmt.Errorf("writing metadata %s: %w", loc, err)
	}
	return &Loaded{loc, raw, md}, nil
}
