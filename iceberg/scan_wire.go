package iceberg

import (
	"bytes"
	"encoding/json"
)

// The JSON of server-side scan planning, as the REST spec shapes it: the
// request, and the files and tasks of a plan's answer.

// ScanRequest is the REST spec's PlanTableScanRequest: which snapshot,
// which rows (filter) and which columns' statistics a scan wants.
type ScanRequest struct {
	SnapshotID        *int64          `json:"snapshot-id"`
	Select            []string        `json:"select"`
	Filter            json.RawMessage `json:"filter"`
	MinRowsRequested  *int64          `json:"min-rows-requested"`
	CaseSensitive     *bool           `json:"case-sensitive"`
	UseSnapshotSchema *bool           `json:"use-snapshot-schema"`
	StartSnapshotID   *int64          `json:"start-snapshot-id"`
	EndSnapshotID     *int64          `json:"end-snapshot-id"`
	StatsFields       []string        `json:"stats-fields"`
}

// UnmarshalJSON refuses fields the request does not have (a client that
// sends one expects a behaviour floe would silently not have).
func (r *ScanRequest) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil // no body: plan the current snapshot, unfiltered
	}
	type wire ScanRequest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*wire)(r)); err != nil {
		if f, ok := unknownField(err); ok {
			return invalid(f, "a scan plan request has no field %q", f)
		}
		return invalid("filter", "malformed scan plan request: %v", err)
	}
	return nil
}

// ContentFile is a data or delete file of a plan, in the spec's JSON
// (ContentFile, DataFile, PositionDeleteFile, EqualityDeleteFile). Bounds
// are hexadecimal single-value serializations, as Java's ContentFileParser
// writes and iceberg-go reads them.
type ContentFile struct {
	Content            string    `json:"content"` // data, position-deletes, equality-deletes
	FilePath           string    `json:"file-path"`
	FileFormat         string    `json:"file-format"`
	SpecID             int       `json:"spec-id"`
	Partition          []any     `json:"partition"`
	FileSizeInBytes    int64     `json:"file-size-in-bytes"`
	RecordCount        int64     `json:"record-count"`
	KeyMetadata        string    `json:"key-metadata,omitempty"`
	SplitOffsets       []int64   `json:"split-offsets,omitempty"`
	SortOrderID        *int      `json:"sort-order-id,omitempty"`
	FirstRowID         *int64    `json:"first-row-id,omitempty"`
	ColumnSizes        *CountMap `json:"column-sizes,omitempty"`
	ValueCounts        *CountMap `json:"value-counts,omitempty"`
	NullValueCounts    *CountMap `json:"null-value-counts,omitempty"`
	NaNValueCounts     *CountMap `json:"nan-value-counts,omitempty"`
	LowerBounds        *ValueMap `json:"lower-bounds,omitempty"`
	UpperBounds        *ValueMap `json:"upper-bounds,omitempty"`
	EqualityIDs        []int     `json:"equality-ids,omitempty"`
	ReferencedDataFile *string   `json:"referenced-data-file,omitempty"`
	ContentOffset      *int64    `json:"content-offset,omitempty"`
	ContentSizeInBytes *int64    `json:"content-size-in-bytes,omitempty"`
}

// CountMap is the spec's field-id to count map.
type CountMap struct {
	Keys   []int   `json:"keys"`
	Values []int64 `json:"values"`
}

// ValueMap is the spec's field-id to bound map.
type ValueMap struct {
	Keys   []int    `json:"keys"`
	Values []string `json:"values"`
}

// FileScanTask is one data file to read, with the delete files that apply
// to it as indexes into its envelope's DeleteFiles.
type FileScanTask struct {
	DataFile             ContentFile `json:"data-file"`
	DeleteFileReferences []int       `json:"delete-file-references,omitempty"`
}

// ScanTasks is one envelope of a plan's answer: file scan tasks with the
// delete files they reference, and handles of further envelopes.
type ScanTasks struct {
	DeleteFiles   []ContentFile  `json:"delete-files,omitempty"`
	FileScanTasks []FileScanTask `json:"file-scan-tasks,omitempty"`
	PlanTasks     []string       `json:"plan-tasks,omitempty"`
}

// ScanStats counts what a plan read and skipped, for tests, benchmarks and
// the log: skipped files are the filter's pruning at work.
type ScanStats struct {
	Manifests          int // data manifests in the snapshot
	ManifestsSkipped   int // skipped on their partition summaries
	DataFiles          int // live data files in the manifests read
	SkippedByPartition int // data files skipped on their partition values
	SkippedByMetrics   int // data files skipped on their column bounds and counts
	Planned            int // data files in the plan
	DeleteFiles        int // delete files attached to them
}
