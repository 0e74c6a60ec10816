package iceberg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/warehouse"
	"github.com/hamba/avro/v2/ocf"
)

// Caps of one Browse Data page; each bounds what a single console request
// may read from storage.
const (
	// DefaultRowLimit is what a page shows when the caller asks for no limit.
	DefaultRowLimit = 50
	// MaxRowLimit bounds a page: a browser table of more rows is unreadable.
	MaxRowLimit = 200
	// MaxCellRunes caps one rendered cell; longer values are cut at a rune
	// boundary and marked Truncated.
	MaxCellRunes = 200
	// MaxManifestsPerPage bounds the manifests read to find data files.
	MaxManifestsPerPage = 64
	// MaxFilesPerPage bounds the data files opened for one page.
	MaxFilesPerPage = 16
)

// Rows is one page of sample rows of an Iceberg table.
type Rows struct {
	SnapshotID int64 // the snapshot read; 0 when the table has none
	Columns    []RowColumn
	Rows       [][]Cell
	// More is true when the snapshot holds rows beyond this page.
	More bool
	// HasDeleteFiles warns that delete files exist: rows shown may have been
	// deleted (delete files are not applied here).
	HasDeleteFiles bool
	FilesRead      int
	// Notes say what was skipped or unreadable, for the page to show.
	Notes []string
}

// RowColumn names one column of the page.
type RowColumn struct {
	Name string
	Type string
}

// Cell is one rendered value. A null is Null with empty Text, so it is never
// confused with an empty string.
type Cell struct {
	Text      string
	Null      bool
	Truncated bool
}

// manifestFile is the part of a manifest-list entry we read.
type manifestFile struct {
	Path    string `avro:"manifest_path"`
	Content int    `avro:"content"` // 0 data, 1 deletes; absent in v1
}

// manifestEntry is the part of a manifest entry we read.
type manifestEntry struct {
	Status   int `avro:"status"` // 0 existing, 1 added, 2 deleted
	DataFile struct {
		Content     int    `avro:"content"` // 0 data, 1 position deletes, 2 equality deletes
		FilePath    string `avro:"file_path"`
		FileFormat  string `avro:"file_format"`
		RecordCount int64  `avro:"record_count"`
	} `avro:"data_file"`
}

// ReadRows reads up to limit rows of a snapshot (0 = current) for Browse
// Data: manifest list → manifests → Parquet data files, in manifest order.
func ReadRows(ctx context.Context, wh *warehouse.Warehouse, tbl catalog.Table, snapshotID int64, limit int) (*Rows, error) {
	return ReadRowsWith(ctx, wh, tbl, snapshotID, limit, RowOptions{})
}

// RowOptions narrow a page of rows: the columns shown (nil = all), a
// filter rows must match, and how many matching rows come before the page.
type RowOptions struct {
	Columns []string
	Filter  Filter
	Offset  int64 // 0..MaxRowOffset
}

const (
	// MaxRowOffset bounds how deep a page starts: without a filter whole
	// data files and row groups are skipped by their counts, but with one
	// every skipped row is read and tested.
	MaxRowOffset = 1_000_000
	// MaxScannedRows bounds the rows read to fill one filtered page; past
	// it the page shows what matched so far and says so.
	MaxScannedRows = 2_000_000
)

// ReadRowsWith is ReadRows with columns, a filter and an offset. A column
// the snapshot's schema lacks is fault.Invalid with Field "col"; a filter
// naming one, or comparing a column with a value of another kind, is
// fault.Invalid with Field "filter".
func ReadRowsWith(ctx context.Context, wh *warehouse.Warehouse, tbl catalog.Table, snapshotID int64, limit int, opt RowOptions) (*Rows, error) {
	files := warehouseFiles{wh}
	md, err := tableMetadataOf(files, tbl)
	if err != nil {
		return nil, err
	}
	return readRows(ctx, files, md, snapshotID, limit, opt)
}

// pageState is what a page read carries across data files.
type pageState struct {
	limit   int
	opt     RowOptions
	shown   []int // schema field index of each shown column
	fcols   []int // schema field index of each filter column
	skip    int64 // matching rows still to skip
	scanned int64
}

func readRows(ctx context.Context, fs fileStore, md *tableMetadata, snapshotID int64, limit int, opt RowOptions) (*Rows, error) {
	if limit <= 0 {
		limit = DefaultRowLimit
	}
	limit = min(limit, MaxRowLimit)
	opt.Offset = min(max(opt.Offset, 0), MaxRowOffset)
	out := &Rows{}
	if snapshotID == 0 {
		snapshotID = md.CurrentSnapshotID
	}
	schema, _ := md.schema(md.CurrentSchemaID)
	for _, f := range schema.Fields {
		out.Columns = append(out.Columns, RowColumn{f.Name, f.Type.String()})
	}
	if snapshotID <= 0 {
		out.Notes = append(out.Notes, "the table has no snapshot yet: nothing has been written")
		return out, nil
	}
	snap, ok := md.snapshot(snapshotID)
	if !ok {
		return nil, fmt.Errorf("snapshot %d does not exist in this table", snapshotID)
	}
	out.SnapshotID = snapshotID
	if snap.SchemaID != nil { // show the snapshot as it was written
		if s, ok := md.schema(*snap.SchemaID); ok {
			schema = s
			out.Columns = out.Columns[:0]
			for _, f := range schema.Fields {
				out.Columns = append(out.Columns, RowColumn{f.Name, f.Type.String()})
			}
		}
	}
	st, err := newPageState(schema, limit, opt, out)
	if err != nil {
		return nil, err
	}
	manifests, err := readManifestList(fs, md, snap, out)
	if err != nil {
		return nil, err
	}
	files := 0
	for mi, m := range manifests {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if mi >= MaxManifestsPerPage {
			out.More = true
			out.Notes = append(out.Notes, fmt.Sprintf("only the first %d manifests were read", MaxManifestsPerPage))
			break
		}
		entries, err := readAvro[manifestEntry](fs, m.Path, md.Location)
		if err != nil {
			out.Notes = append(out.Notes, fmt.Sprintf("manifest %s is unreadable: %v", baseName(m.Path), err))
			continue
		}
		for _, e := range entries {
			if e.Status == 2 {
				continue // deleted in this snapshot
			}
			if e.DataFile.Content != 0 {
				out.HasDeleteFiles = true
				continue
			}
			if e.DataFile.RecordCount == 0 {
				continue
			}
			if st.opt.Filter.IsZero() && st.skip >= e.DataFile.RecordCount {
				st.skip -= e.DataFile.RecordCount // before the page: not even opened
				continue
			}
			if len(out.Rows) >= limit || files >= MaxFilesPerPage || st.scanned >= MaxScannedRows {
				out.More = true
				break
			}
			if !strings.EqualFold(e.DataFile.FileFormat, "PARQUET") {
				out.Notes = append(out.Notes, fmt.Sprintf("skipped %s: %s files are not read here", baseName(e.DataFile.FilePath), e.DataFile.FileFormat))
				continue
			}
			if !within(e.DataFile.FilePath, md.Location) {
				out.Notes = append(out.Notes, fmt.Sprintf("skipped %s: it lies outside the table location", e.DataFile.FilePath))
				continue
			}
			files++
			more, err := readParquet(ctx, fs, e.DataFile.FilePath, schema, st, out)
			var fe *filterError
			if errors.As(err, &fe) {
				return nil, fault.New(fault.Invalid, "filter", "%s", fe.Error())
			}
			if err != nil {
				out.Notes = append(out.Notes, fmt.Sprintf("data file %s is unreadable: %v", baseName(e.DataFile.FilePath), err))
				continue
			}
			out.FilesRead++
			if more {
				out.More = true
			}
		}
		if len(out.Rows) >= limit {
			if mi < len(manifests)-1 {
				out.More = true
			}
			break
		}
	}
	if out.HasDeleteFiles {
		out.Notes = append(out.Notes, "this snapshot has delete files, which are not applied here: some rows shown may have been deleted")
	}
	if st.scanned >= MaxScannedRows && len(out.Rows) < limit {
		out.Notes = append(out.Notes, fmt.Sprintf("the filter was tested on the first %d rows only; narrow it to find rows further in", MaxScannedRows))
	}
	return out, nil
}

// newPageState checks the columns and the filter against the schema and
// sets the page's shown columns.
func newPageState(schema Schema, limit int, opt RowOptions, out *Rows) (*pageState, error) {
	st := &pageState{limit: limit, opt: opt, skip: opt.Offset}
	byName := make(map[string]int, len(schema.Fields))
	for i, f := range schema.Fields {
		byName[f.Name] = i
	}
	if len(opt.Columns) == 0 {
		for i := range schema.Fields {
			st.shown = append(st.shown, i)
		}
	} else {
		want := map[string]bool{}
		for _, c := range opt.Columns {
			if _, ok := byName[c]; !ok {
				return nil, fault.New(fault.Invalid, "col", "this snapshot has no column %q; pick columns from the list", c)
			}
			want[c] = true
		}
		for i, f := range schema.Fields { // in the schema's order
			if want[f.Name] {
				st.shown = append(st.shown, i)
			}
		}
		out.Columns = out.Columns[:0]
		for _, i := range st.shown {
			f := schema.Fields[i]
			out.Columns = append(out.Columns, RowColumn{f.Name, f.Type.String()})
		}
	}
	for _, c := range opt.Filter.Columns() {
		i, ok := byName[c]
		if !ok {
			return nil, fault.New(fault.Invalid, "filter", "the filter names column %q, which this snapshot does not have", c)
		}
		st.fcols = append(st.fcols, i)
	}
	return st, nil
}

// filterError is a filter that cannot be applied to the rows read (a
// comparison of a column with a value of another kind).
type filterError struct{ err error }

func (e *filterError) Error() string { return e.err.Error() }

func readManifestList(fs fileStore, md *tableMetadata, snap Snapshot, out *Rows) ([]manifestFile, error) {
	if snap.ManifestList == "" { // v1 snapshots may list manifests inline
		var ms []manifestFile
		for _, p := range snap.Manifests {
			ms = append(ms, manifestFile{Path: p})
		}
		return ms, nil
	}
	list, err := readAvro[manifestFile](fs, snap.ManifestList, md.Location)
	if err != nil {
		return nil, fmt.Errorf("reading the manifest list of snapshot %d: %w", snap.SnapshotID, err)
	}
	data := list[:0]
	for _, m := range list {
		if m.Content != 0 {
			out.HasDeleteFiles = true
			continue
		}
		data = append(data, m)
	}
	return data, nil
}

// readAvro decodes every record of an Avro object container file inside the
// table location.
func readAvro[T any](fs fileStore, loc, tableLoc string) ([]T, error) {
	if !within(loc, tableLoc) {
		return nil, fmt.Errorf("%s lies outside the table location", loc)
	}
	f, err := fs.Open(loc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec, err := ocf.NewDecoder(f)
	if err != nil {
		return nil, err
	}
	var out []T
	for dec.HasNext() {
		var v T
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := dec.Error(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return out, nil
}

// readParquet appends rows of one data file until the page is full,
// skipping the rows before the page and those the filter refuses; more
// says the file held rows beyond the page.
func readParquet(ctx context.Context, fs fileStore, loc string, schema Schema, st *pageState, out *Rows) (more bool, err error) {
	f, err := fs.Open(loc)
	if err != nil {
		return false, err
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return false, err
	}
	defer pf.Close()
	limit := st.limit
	want := limit - len(out.Rows)
	// Without a filter, whole row groups before the page are skipped by
	// their counts; with one every row is tested.
	var groups []int
	consumed := int64(0) // rows of this file skipped or examined
	if st.opt.Filter.IsZero() && st.skip > 0 {
		for g := 0; g < pf.NumRowGroups(); g++ {
			n := pf.MetaData().RowGroup(g).NumRows()
			if st.skip >= n && len(groups) == 0 {
				st.skip -= n
				consumed += n
				continue
			}
			groups = append(groups, g)
		}
		if len(groups) == 0 {
			return false, nil
		}
	}
	batch := int64(want)
	if !st.opt.Filter.IsZero() || st.skip > 0 {
		batch = 4096 // most rows read are dropped: read in larger batches
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batch}, memory.DefaultAllocator)
	if err != nil {
		return false, err
	}
	arrowSchema, err := fr.Schema()
	if err != nil {
		return false, err
	}
	// Map each schema column to the file's column: by Iceberg field id,
	// then by name; a column the file lacks (added later) reads as null.
	cols := make([]int, len(schema.Fields))
	for i, f := range schema.Fields {
		cols[i] = fileColumn(arrowSchema, f)
	}
	rr, err := fr.GetRecordReader(ctx, nil, groups)
	if err != nil {
		return false, err
	}
	defer rr.Release()
	for len(out.Rows) < limit && rr.Next() {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		rec := rr.RecordBatch()
		rows := int(rec.NumRows())
		r := 0
		for ; r < rows && len(out.Rows) < limit && st.scanned < MaxScannedRows; r++ {
			st.scanned++
			consumed++
			if !st.opt.Filter.IsZero() {
				ok, err := st.opt.Filter.matches(func(k int) rowValue {
					idx := cols[st.fcols[k]]
					if idx < 0 {
						return rowValue{null: true}
					}
					return cellValue(rec.Column(idx), r)
				})
				if err != nil {
					return false, &filterError{err}
				}
				if !ok {
					continue
				}
			}
			if st.skip > 0 {
				st.skip--
				continue
			}
			row := make([]Cell, len(st.shown))
			for c, fi := range st.shown {
				idx := cols[fi]
				if idx < 0 {
					row[c] = Cell{Null: true}
					continue
				}
				row[c] = renderCell(rec.Column(idx), r)
			}
			out.Rows = append(out.Rows, row)
		}
		if r < rows {
			more = true
		}
		if st.scanned >= MaxScannedRows {
			break
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return more, err
	}
	if !more {
		more = pf.NumRows() > consumed // rows left unread in later batches
	}
	return more, nil
}

func fileColumn(s *arrow.Schema, f Field) int {
	for i, af := range s.Fields() {
		if v, ok := af.Metadata.GetValue("PARQUET:field_id"); ok && v == strconv.Itoa(f.ID) {
			return i
		}
	}
	for i, af := range s.Fields() {
		if af.Name == f.Name {
			return i
		}
	}
	return -1
}

func renderCell(a arrow.Array, i int) Cell {
	if a.IsNull(i) {
		return Cell{Null: true}
	}
	return capCell(a.ValueStr(i))
}

// capCell cuts text at MaxCellRunes runes, never inside a rune.
func capCell(s string) Cell {
	if utf8.RuneCountInString(s) <= MaxCellRunes {
		return Cell{Text: s}
	}
	n := 0
	for i := range s {
		if n == MaxCellRunes {
			return Cell{Text: s[:i], Truncated: true}
		}
		n++
	}
	return Cell{Text: s}
}

func baseName(loc string) string { return loc[lastSlash(loc)+1:] }
