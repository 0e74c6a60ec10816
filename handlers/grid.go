package handlers

import "github.com/floe/floe/views"

// DataGrid is what Browse Data renders, whatever the format: Lance rows from
// a worker's preview and Iceberg rows read from Parquet both become one.
// Render it with views.DataGrid(g). The types live in views (handlers import
// views, not the other way round); these aliases keep the handlers' name.
type DataGrid = views.Grid

// GridColumn is one column header: its name and its Arrow (or Iceberg) type.
type GridColumn = views.GridColumn

// GridCell is one rendered value. Null is distinct from an empty string;
// Truncated marks text cut at the cell cap.
type GridCell = views.GridCell
