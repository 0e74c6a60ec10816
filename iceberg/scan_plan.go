package iceberg

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// MaxPlanFiles bounds the data files of one plan: a plan is held in memory
// until its tasks are fetched, and a scan of more files than this is one
// to narrow, or to plan on the client from the metadata.
const MaxPlanFiles = 100_000

// scanInput is a request resolved against the table.
type scanInput struct {
	ref     catalog.TableRef
	table   catalog.Table
	md      *tableMetadata
	snap    *Snapshot // nil: the table has no snapshot, the plan is empty
	filter  expr
	specs   map[int]planSpec
	statsOf map[int]bool // columns whose statistics the tasks carry
}

// resolveScan checks a request and resolves it against the table's
// current metadata.
func (s *Tables) resolveScan(ctx context.Context, ref catalog.TableRef, req ScanRequest) (*scanInput, error) {
	if req.StartSnapshotID != nil || req.EndSnapshotID != nil {
		if req.SnapshotID != nil {
			return nil, invalid("snapshot-id", "a scan is point in time (snapshot-id) or incremental (start/end-snapshot-id), not both")
		}
		return nil, newError(fault.Unsupported, "start-snapshot-id", "incremental scans are not planned by floe; plan a point-in-time scan (snapshot-id), or plan the increment from the metadata")
	}
	t, err := s.Table(ctx, ref)
	if err != nil {
		return nil, err
	}
	m, err := s.readMetadata(ctx, t.MetadataLocation)
	if err != nil {
		return nil, fmt.Errorf("reading metadata of %s: %w", ref.Name, err)
	}
	md := m.md
	in := &scanInput{ref: ref, table: t, md: md, specs: map[int]planSpec{}, statsOf: map[int]bool{}}
	id := md.CurrentSnapshotID
	if req.SnapshotID != nil {
		id = *req.SnapshotID
	}
	if id >= 0 {
		snap, ok := md.snapshot(id)
		if !ok {
			return nil, invalid("snapshot-id", "snapshot %d does not exist in table %s", id, ref.Name)
		}
		in.snap = &snap
	}
	schema, _ := md.schema(md.CurrentSchemaID)
	if req.UseSnapshotSchema != nil && *req.UseSnapshotSchema && in.snap != nil && in.snap.SchemaID != nil {
		if sc, ok := md.schema(*in.snap.SchemaID); ok {
			schema = sc
		}
	}
	caseSensitive := req.CaseSensitive == nil || *req.CaseSensitive
	b := newBinder(schema, caseSensitive)
	if in.filter, err = b.filter(req.Filter); err != nil {
		return nil, err
	}
	for _, name := range req.Select {
		if !b.hasName(name) {
			return nil, invalid("select", "select names %q, which is no column of table %s", name, ref.Name)
		}
	}
	for _, name := range req.StatsFields {
		f, ok := b.column(name)
		if !ok {
			return nil, invalid("stats-fields", "stats-fields names %q, which is no primitive column of table %s", name, ref.Name)
		}
		in.statsOf[f.id] = true
	}
	// Partition sources resolve against every schema's columns: a spec may
	// partition by a column the scan's schema renamed.
	all := newBinder(Schema{}, true)
	for _, sc := range md.Schemas {
		all.index(sc.Fields, "", false)
	}
	for id, f := range b.byID {
		all.byID[id] = f
	}
	for _, sp := range md.PartitionSpecs {
		in.specs[sp.SpecID] = resolveSpec(sp, all.byID)
	}
	return in, nil
}

// plannedTask is a data file of the plan and the deletes that apply to it.
type plannedTask struct {
	file    ContentFile
	deletes []*plannedDelete
}

// pruneManifests reads the snapshot's manifest list and keeps the data and
// delete manifests whose partition summaries might match the filter.
func (s *Tables) pruneManifests(in *scanInput, st *ScanStats) (data, deletes []listEntry, err error) {
	if in.snap == nil {
		return nil, nil, nil
	}
	var list []listEntry
	if in.snap.ManifestList == "" { // v1 snapshots may list manifests inline
		for _, p := range in.snap.Manifests {
			list = append(list, listEntry{Path: p})
		}
	} else if list, err = readListEntries(s.files, in.snap.ManifestList, in.md.Location); err != nil {
		return nil, nil, fmt.Errorf("reading the manifest list of snapshot %d: %w", in.snap.SnapshotID, err)
	}
	for _, m := range list {
		if m.Content == 0 {
			st.Manifests++
		}
		if spec, ok := in.specs[m.SpecID]; ok && !summaryMightMatch(in.filter, spec, m.Partitions) {
			if m.Content == 0 {
				st.ManifestsSkipped++
			}
			continue
		}
		if m.Content == 0 {
			data = append(data, m)
		} else {
			deletes = append(deletes, m)
		}
	}
	return data, deletes, nil
}

// estimate is how many manifest entries reading ms costs, from the list's
// counts (a manifest whose list does not say counts as a thousand).
func estimate(ms []listEntry) int {
	n := 0
	for _, m := range ms {
		if f := m.files(); f >= 0 {
			n += f
		} else {
			n += 1000
		}
	}
	return n
}

// collectTasks reads the kept manifests and returns the data files that
// might match, each with the delete files that apply to it.
func (s *Tables) collectTasks(ctx context.Context, in *scanInput, data, deletes []listEntry, st *ScanStats) ([]plannedTask, error) {
	dels, err := s.collectDeletes(ctx, in, deletes)
	if err != nil {
		return nil, err
	}
	var tasks []plannedTask
	for _, m := range data {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		spec, specKnown := in.specs[m.SpecID]
		err := s.readManifest(m.Path, in.md.Location, func(e *planEntry) error {
			if e.Status == 2 || e.File.Content != 0 {
				return nil // deleted in this snapshot, or a delete file in a data manifest
			}
			st.DataFiles++
			part, values, present, partOK := partitionOf(spec, specKnown, &e.File)
			if partOK && !partitionMightMatch(in.filter, spec, values, present) {
				st.SkippedByPartition++
				return nil
			}
			if !metricsMightMatch(in.filter, metricsOf(&e.File)) {
				st.SkippedByMetrics++
				return nil
			}
			if len(tasks) >= MaxPlanFiles {
				return newError(fault.Invalid, "filter", "the scan selects more than %d data files, more than floe plans for one scan; narrow the filter, or plan on the client from the table's metadata", MaxPlanFiles)
			}
			seq := entrySeq(e, m)
			t := plannedTask{file: in.contentFile(&e.File, m.SpecID, part)}
			key := partKey(part)
			for _, d := range dels {
				if d.appliesTo(seq, m.SpecID, key, e.File.FilePath) {
					t.deletes = append(t.deletes, d)
				}
			}
			tasks = append(tasks, t)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	st.Planned = len(tasks)
	seen := map[*plannedDelete]bool{}
	for _, t := range tasks {
		for _, d := range t.deletes {
			seen[d] = true
		}
	}
	st.DeleteFiles = len(seen)
	return tasks, nil
}

// entrySeq is an entry's data sequence number: its own, or the manifest's
// for an entry added by the snapshot that wrote the manifest (inherited).
func entrySeq(e *planEntry, m listEntry) int64 {
	if e.SequenceNumber != nil {
		return *e.SequenceNumber
	}
	return m.SequenceNumber
}

// partitionOf reads a file's partition tuple for spec: JSON values for the
// answer, and typed values for pruning. ok is false when a value could not
// be read, and the file is then never pruned on its partition.
func partitionOf(spec planSpec, specKnown bool, f *planFile) (part []any, values []value, present []bool, ok bool) {
	if !specKnown {
		return []any{}, nil, nil, false
	}
	ok = true
	part = make([]any, len(spec.fields))
	values = make([]value, len(spec.fields))
	present = make([]bool, len(spec.fields))
	for i, sf := range spec.fields {
		raw := f.Partition[sf.name]
		if !sf.typed {
			part[i] = genericJSON(raw)
			ok = false
			continue
		}
		v, has, err := partitionValue(sf.result, raw)
		if err != nil {
			part[i] = genericJSON(raw)
			ok = false
			continue
		}
		values[i], present[i] = v, has
		if has {
			part[i] = jsonValue(sf.result, v)
		}
	}
	return part, values, present, ok
}

// genericJSON is a partition value of a type planning does not model, as
// close to its JSON form as the decoder's Go value allows.
func genericJSON(v any) any {
	switch x := v.(type) {
	case float32:
		return jsonFloat(float64(x))
	case float64:
		return jsonFloat(x)
	case []byte:
		return strings.ToUpper(hex.EncodeToString(x))
	case map[string]any:
		if len(x) == 1 {
			for _, inner := range x {
				return genericJSON(inner)
			}
		}
	}
	return v
}

// partKey is a partition tuple as a comparable string.
func partKey(part []any) string {
	b, _ := json.Marshal(part)
	return string(b)
}

// contentFile is a manifest file as the plan's answer carries it, with the
// statistics of the columns the request asked for.
func (in *scanInput) contentFile(f *planFile, specID int, part []any) ContentFile {
	cf := ContentFile{
		FilePath: f.FilePath, FileFormat: strings.ToLower(f.FileFormat), SpecID: specID, Partition: part,
		FileSizeInBytes: f.FileSize, RecordCount: f.RecordCount, SplitOffsets: f.SplitOffsets,
		SortOrderID: f.SortOrderID, FirstRowID: f.FirstRowID, EqualityIDs: f.EqualityIDs,
		ReferencedDataFile: f.ReferencedDataFile, ContentOffset: f.ContentOffset, ContentSizeInBytes: f.ContentSize,
	}
	switch f.Content {
	case 0:
		cf.Content = "data"
	case 1:
		cf.Content = "position-deletes"
	case 2:
		cf.Content = "equality-deletes"
	}
	if len(f.KeyMetadata) > 0 {
		cf.KeyMetadata = strings.ToUpper(hex.EncodeToString(f.KeyMetadata))
	}
	if f.Content == 0 && len(in.statsOf) > 0 {
		cf.ColumnSizes = in.counts(f.ColumnSizes)
		cf.ValueCounts = in.counts(f.ValueCounts)
		cf.NullValueCounts = in.counts(f.NullCounts)
		cf.NaNValueCounts = in.counts(f.NaNCounts)
		cf.LowerBounds = in.bounds(f.LowerBounds)
		cf.UpperBounds = in.bounds(f.UpperBounds)
	}
	return cf
}

func (in *scanInput) counts(es []countEntry) *CountMap {
	var m CountMap
	for _, e := range es {
		if in.statsOf[e.Key] {
			m.Keys, m.Values = append(m.Keys, e.Key), append(m.Values, e.Value)
		}
	}
	if len(m.Keys) == 0 {
		return nil
	}
	return &m
}

func (in *scanInput) bounds(es []boundEntry) *ValueMap {
	var m ValueMap
	for _, e := range es {
		if in.statsOf[e.Key] {
			m.Keys, m.Values = append(m.Keys, e.Key), append(m.Values, strings.ToUpper(hex.EncodeToString(e.Value)))
		}
	}
	if len(m.Keys) == 0 {
		return nil
	}
	return &m
}

// envelopes splits a plan's tasks into envelopes of at most size tasks,
// each carrying the delete files its tasks reference (the spec scopes
// delete-file references to their envelope).
func envelopes(tasks []plannedTask, size int) []ScanTasks {
	var out []ScanTasks
	for start := 0; start < len(tasks); start += size {
		chunk := tasks[start:min(start+size, len(tasks))]
		var env ScanTasks
		index := map[*plannedDelete]int{}
		for _, t := range chunk {
			ft := FileScanTask{DataFile: t.file}
			for _, d := range t.deletes {
				i, ok := index[d]
				if !ok {
					i = len(env.DeleteFiles)
					index[d] = i
					env.DeleteFiles = append(env.DeleteFiles, d.file)
				}
				ft.DeleteFileReferences = append(ft.DeleteFileReferences, i)
			}
			sort.Ints(ft.DeleteFileReferences)
			env.FileScanTasks = append(env.FileScanTasks, ft)
		}
		out = append(out, env)
	}
	return out
}
