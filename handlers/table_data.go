package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/preview"
	"github.com/floe/floe/views"
)

// lanceRowLimits are Browse Data's row-limit choices; the last is the
// broker's own cap (preview.MaxRowLimit).
var lanceRowLimits = []int{preview.DefaultRowLimit, 100, preview.MaxRowLimit}

// maxPreviewFilterLen bounds the filter passed to the worker: a predicate, not a
// program.
const maxPreviewFilterLen = 1000

// TableData is Browse Data. This is the one place that dispatches on the
// table's format: Lance rows come from a worker's preview (lanceData),
// Iceberg rows from the table's Parquet files (icebergData, in
// table_data_iceberg.go).
func (h *Handlers) TableData(w http.ResponseWriter, r *http.Request) {
	t, err := h.store.GetTable(r.Context(), tableRef(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if t.Format == catalog.FormatIceberg {
		h.icebergData(w, r)
		return
	}
	h.lanceData(w, r, t)
}

// lanceData asks a worker for sample rows through the preview broker. The
// request's context is the browser's: if it leaves, the broker cancels the
// worker's read.
func (h *Handlers) lanceData(w http.ResponseWriter, r *http.Request, t catalog.Table) {
	b, err := h.store.GetBucket(r.Context(), t.Bucket)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ns := catalog.JoinNamespace(t.Namespace)
	v := views.LanceDataView{
		Page: h.page(r, "Browse Data · "+t.Name, "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: ns, Table: t.Name, Action: views.TableURL(b.Name, ns, t.Name) + "/data",
		Limits: lanceRowLimits, Errors: views.FieldErrors{},
	}
	q := r.URL.Query()
	v.Limit, _ = strconv.Atoi(q.Get("limit"))
	if !slices.Contains(lanceRowLimits, v.Limit) {
		v.Limit = preview.DefaultRowLimit
	}
	v.Filter = strings.TrimSpace(q.Get("filter"))
	picked := q["col"]
	at, err := h.lanceReadAt(r.Context(), t, q)
	if err == nil {
		v.Offset, err = parseOffset(q)
	}
	v.Versions = h.lancePicker(r.Context(), t, at)
	if err != nil {
		status := readAtStatus(err)
		if status == 0 {
			h.fail(w, r, err) // the catalog or the store failed, not the link
			return
		}
		h.logError(r, status, err)
		v.Failure = sentenceOf(err)
		h.render(w, r, status, views.LanceDataPage(v))
		return
	}

	// The picker lists the columns the worker last described; without a
	// description it lists what the read returns.
	var schema []observe.Field
	if h.observe != nil {
		if st, ok := h.observe.Stats(t.ID, catalog.FormatLance); ok {
			schema = st.Schema
		}
	}
	for _, f := range schema {
		v.Columns = append(v.Columns, views.ColumnChoice{Name: f.Name, Type: f.TypeString()})
	}
	var cols []string
	for _, c := range picked {
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	if len(schema) > 0 && len(cols) == len(schema) {
		cols = nil // every column picked is the same as none: ask for all
	}

	if utf8.RuneCountInString(v.Filter) > maxPreviewFilterLen {
		v.Errors["filter"] = fmt.Sprintf("A filter is at most %d characters.", maxPreviewFilterLen)
		h.logError(r, http.StatusUnprocessableEntity, errors.New("filter too long"))
		h.render(w, r, http.StatusUnprocessableEntity, views.LanceDataPage(v))
		return
	}
	if h.preview == nil {
		v.Unavailable = "Browse Data needs a connected Lance worker: sample rows are read by the worker that last described this table, and this console runs without the plugin channel. Start floe serve with a --grpc address (make run does) and a worker."
		h.render(w, r, http.StatusOK, views.LanceDataPage(v))
		return
	}

	start := time.Now()
	res, err := h.preview.Fetch(r.Context(), preview.Request{ObjectID: t.ID, Format: catalog.FormatLance,
		RowLimit: v.Limit, Columns: cols, Filter: v.Filter, Version: at.Version, Offset: v.Offset})
	if err != nil {
		status, msg := previewFailure(r.Context(), err)
		if status == 0 {
			h.logError(r, 499, err) // the browser left; nobody reads a page
			return
		}
		h.logError(r, status, err)
		v.Failure = msg
		if errors.Is(err, preview.ErrBadFilter) {
			v.Failure, v.Errors["filter"] = "", msg // the sentence belongs next to the field
		}
		markPicked(&v, cols)
		h.render(w, r, status, views.LanceDataPage(v))
		return
	}
	if len(v.Columns) == 0 {
		for _, c := range res.Columns {
			v.Columns = append(v.Columns, views.ColumnChoice{Name: c.Name, Type: c.Type})
		}
	}
	markPicked(&v, cols)
	v.Grid = lanceGrid(res, time.Since(start))
	v.HasGrid = true
	v.Pager = rowPager(v.Action, q, v.Offset, v.Limit, res.RowsRead, res.Truncated)
	if at.Version > 0 {
		v.Grid.Footer = "Version " + strconv.FormatUint(at.Version, 10) + tagNote(at.Tag) + ": " + v.Grid.Footer
	} else {
		h.observeIfBehind(t, res.TotalRows) // only the latest version says whether observations trail
	}
	h.renderPooled(w, r, http.StatusOK, views.LanceDataPage(v))
}

// markPicked checks the picked columns; none picked means all.
func markPicked(v *views.LanceDataView, cols []string) {
	for i := range v.Columns {
		v.Columns[i].Checked = len(cols) == 0 || slices.Contains(cols, v.Columns[i].Name)
	}
}

// previewFailure maps a broker error to a status and the sentence shown in
// place of the grid. Status 0: the browser went away.
func previewFailure(ctx context.Context, err error) (int, string) {
	if ctx.Err() != nil {
		return 0, ""
	}
	pe, ok := fault.As(err)
	if !ok {
		return http.StatusBadGateway, "The rows could not be read: " + err.Error() + "."
	}
	switch {
	case errors.Is(err, preview.ErrNotObserved), errors.Is(err, preview.ErrWorkerGone):
		return http.StatusServiceUnavailable, pe.Message
	case errors.Is(err, preview.ErrTimeout):
		return http.StatusGatewayTimeout, pe.Message
	case errors.Is(err, preview.ErrTooLarge), errors.Is(err, preview.ErrBadFilter):
		return http.StatusUnprocessableEntity, pe.Message
	}
	return http.StatusBadGateway, pe.Message
}

// lanceGrid turns a preview into the shared grid model.
func lanceGrid(res *preview.Result, took time.Duration) views.Grid {
	g := views.Grid{Columns: make([]views.GridColumn, len(res.Columns)), Rows: make([][]views.GridCell, len(res.Rows))}
	for i, c := range res.Columns {
		g.Columns[i] = views.GridColumn{Name: c.Name, Type: c.Type}
	}
	for i, row := range res.Rows {
		cells := make([]views.GridCell, len(row))
		for j, c := range row {
			cells[j] = views.GridCell{Text: c.Text, Null: c.Null, Truncated: c.Truncated}
		}
		g.Rows[i] = cells
	}
	read := groupDigits(int64(res.RowsRead)) + " rows"
	if res.RowsRead == 1 {
		read = "1 row"
	}
	switch {
	case res.TotalRows >= 0:
		g.Footer = fmt.Sprintf("%s read out of %s, by worker %s in %s.", read, groupDigits(res.TotalRows), res.WorkerID, roundMS(took))
	case res.Truncated:
		g.Footer = fmt.Sprintf("%s read by worker %s in %s; the table holds more.", read, res.WorkerID, roundMS(took))
	default:
		g.Footer = fmt.Sprintf("%s read by worker %s in %s.", read, res.WorkerID, roundMS(took))
	}
	if len(res.Columns) >= preview.MaxColumns {
		g.Notes = append(g.Notes, fmt.Sprintf("Only the first %d columns are shown; pick columns to see others.", preview.MaxColumns))
	}
	return g
}

func roundMS(d time.Duration) string {
	if d < time.Millisecond {
		return "under 1 ms"
	}
	return d.Round(time.Millisecond).String()
}

// maxPooledPage bounds the buffers kept for reuse: a 200-row page is about
// 150 KiB; a rare huge page is left to the garbage collector rather than
// pinned in the pool.
const maxPooledPage = 1 << 20

// pagePool reuses render buffers for Browse Data, whose pages are large
// enough that growing a fresh buffer each time dominates rendering.
var pagePool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// renderPooled is render with a reused buffer: the page is still written
// only once it rendered completely.
func (h *Handlers) renderPooled(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	buf := pagePool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledPage {
			pagePool.Put(buf)
		}
	}()
	if err := c.Render(r.Context(), buf); err != nil {
		h.logError(r, http.StatusInternalServerError, err)
		http.Error(w, "The page could not be rendered. The error is in the server log.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
