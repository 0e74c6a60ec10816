package handlers

// DataGrid is what Browse Data renders, whatever the format: Lance rows from
// a worker's preview and Iceberg rows read from Parquet both become one.
type DataGrid struct {
	Columns []GridColumn
	Rows    [][]GridCell
	// Notes are sentences shown above the grid: skipped files, warnings
	// (e.g. Iceberg deletes not applied).
	Notes []string
	// Footer says how many rows were read, out of how many, and by whom.
	Footer string
}

// GridColumn is one column header: its name and its Arrow (or Iceberg) type.
type GridColumn struct {
	Name string
	Type string
}

// GridCell is one rendered value. Null is distinct from an empty string;
// Truncated marks text cut at the cell cap.
type GridCell struct {
	Text      string
	Null      bool
	Truncated bool
}
