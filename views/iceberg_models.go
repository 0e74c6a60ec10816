package views

import "time"

// IcebergPanel is the Iceberg part of the table page, read from the table's
// current metadata file. When Error is set nothing else is filled: the page
// shows the sentence instead of the panels.
type IcebergPanel struct {
	Error            string
	FormatVersion    int
	UUID             string
	MetadataLocation string
	LastUpdated      time.Time

	// Summary cards, formatted; "—" when the writer did not record the figure.
	Records     string
	DataFiles   string
	DeleteFiles string
	Size        string
	Snapshots   string

	Columns      []IcebergColumn // the first rows of the schema (the handler bounds them)
	ColumnsTotal int             // rows in the whole schema; more than len(Columns) when cut
	Schemas      int             // schemas the metadata keeps (the history page compares them)
	SchemasHref  string          // the schema history page
	Partition    []string        // "bucket[16](id) AS id_bucket"
	SortOrder    []string        // "id asc nulls-first"
	Properties   []IcebergProperty
	History      []IcebergSnapshot // newest first
	Refs         []IcebergRef
}

// IcebergColumn is one schema row; nested fields carry Depth > 0.
type IcebergColumn struct {
	ID       int
	Name     string
	Path     string
	Depth    int
	Type     string
	Required bool
	Doc      string
}

// IcebergProperty is one table property.
type IcebergProperty struct{ Key, Value string }

// IcebergSnapshot is one row of the snapshots panel.
type IcebergSnapshot struct {
	ID        string
	Time      time.Time
	Operation string
	Added     string // "—" when the summary lacks it
	Total     string
	Current   bool
	DataHref  string // Browse Data at this snapshot
}

// IcebergRef is one branch or tag.
type IcebergRef struct {
	Name       string
	Type       string
	SnapshotID string
}

// IcebergDataView is Browse Data of an Iceberg table.
type IcebergDataView struct {
	Page
	Bucket       string
	BucketFormat string
	Namespace    string
	Table        string
	Action       string // the page's own URL, the picker form's action
	Snapshots    []SnapshotOption
	Limits       []LimitOption
	NoSnapshot   bool   // nothing written yet: no picker, no grid
	Error        string // the read failed: a sentence instead of the grid
	HasDeletes   bool
	Grid         Grid
	// The column picker and filter, as Lance Browse Data has them.
	Columns []ColumnChoice
	Filter  string
	Errors  FieldErrors
	Pager   RowPager
}

// SnapshotOption is one entry of the snapshot picker.
type SnapshotOption struct {
	ID       string
	Label    string
	Selected bool
}

// LimitOption is one row-limit choice.
type LimitOption struct {
	Value    int
	Selected bool
}

// IcebergCreateView is the create-table page of an Iceberg namespace.
type IcebergCreateView struct {
	Page
	Bucket       string
	BucketFormat string
	Namespace    string
	Action       string // the form's POST URL
	RowURL       string // the htmx fragment that adds one schema row
	Name         string
	Columns      []IcebergColumnInput
	Types        []string
	Partition    string // none | identity | bucket | day
	PartSource   string
	PartN        string
	Errors       FieldErrors
	Notice       string
}

// IcebergColumnInput is one row of the schema builder as the user filled it.
type IcebergColumnInput struct {
	Key       string // unique in the page: ids of the row's inputs and errors
	Name      string
	Type      string
	Precision string // decimal only
	Scale     string // decimal only
	Required  bool
}
