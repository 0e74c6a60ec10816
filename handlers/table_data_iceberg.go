package handlers

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/views"
)

// icebergRowLimits are the row-limit choices of Browse Data; the last is the
// reader's own cap (iceberg.MaxRowLimit).
var icebergRowLimits = []int{iceberg.DefaultRowLimit, 100, iceberg.MaxRowLimit}

// icebergData is Browse Data for an Iceberg table: a snapshot picker (a GET
// form, so a link to one snapshot survives a reload), a row limit, and the
// rows read from the snapshot's Parquet files.
func (h *Handlers) icebergData(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ref := tableRef(r)
	b, err := h.store.GetBucket(ctx, ref.Bucket)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	t, err := h.store.GetTable(ctx, ref)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ns := catalog.JoinNamespace(t.Namespace)
	v := views.IcebergDataView{
		Page: h.page(r, "Browse Data · "+t.Name, "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: ns, Table: t.Name, Action: views.TableURL(b.Name, ns, t.Name) + "/data",
	}
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	if !slices.Contains(icebergRowLimits, limit) {
		limit = iceberg.DefaultRowLimit
	}
	for _, l := range icebergRowLimits {
		v.Limits = append(v.Limits, views.LimitOption{Value: l, Selected: l == limit})
	}

	md, err := iceberg.LoadTableMetadata(ctx, h.store.Storage(), t)
	if err != nil {
		h.logError(r, http.StatusOK, err)
		v.Error = "The table's metadata could not be read, so there are no rows to show: " + err.Error() + "."
		h.render(w, r, http.StatusOK, views.IcebergDataPage(v))
		return
	}
	if len(md.Snapshots) == 0 {
		v.NoSnapshot = true
		h.render(w, r, http.StatusOK, views.IcebergDataPage(v))
		return
	}
	snap := md.CurrentSnapshotID
	if s := strings.TrimSpace(q.Get("snapshot")); s != "" && s != "current" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || !slices.ContainsFunc(md.Snapshots, func(x iceberg.SnapshotInfo) bool { return x.ID == id }) {
			h.logError(r, http.StatusNotFound, fmt.Errorf("snapshot %q not in table %s", s, t.ID))
			v.Error = fmt.Sprintf("This table has no snapshot %q. Pick one from the list.", s)
			v.Snapshots = snapshotOptions(md, snap)
			h.render(w, r, http.StatusNotFound, views.IcebergDataPage(v))
			return
		}
		snap = id
	}
	if snap <= 0 && len(md.Snapshots) > 0 {
		snap = md.Snapshots[0].ID // a table whose main ref was removed: newest
	}
	v.Snapshots = snapshotOptions(md, snap)

	opt, ok := h.icebergRowOptions(r, md, &v)
	if !ok {
		h.render(w, r, http.StatusUnprocessableEntity, views.IcebergDataPage(v))
		return
	}
	rows, err := iceberg.ReadRowsWith(ctx, h.store.Storage(), t, snap, limit, opt)
	if fe, isField := fault.As(err); isField && fe.Kind == fault.Invalid {
		h.logError(r, http.StatusUnprocessableEntity, err)
		if fe.Field == "filter" {
			v.Errors["filter"] = capitalize(fe.Message) + "."
		} else {
			v.Error = capitalize(fe.Message) + "."
		}
		h.render(w, r, http.StatusUnprocessableEntity, views.IcebergDataPage(v))
		return
	}
	if err != nil {
		h.logError(r, http.StatusOK, err)
		v.Error = "The rows of this snapshot could not be read: " + err.Error() + "."
		h.render(w, r, http.StatusOK, views.IcebergDataPage(v))
		return
	}
	v.HasDeletes = rows.HasDeleteFiles
	total := snapshotTotal(md, snap)
	if !opt.Filter.IsZero() {
		total = -1 // the snapshot's count is not the count of matching rows
	}
	v.Grid = icebergGrid(rows, total)
	v.Pager = rowPager(v.Action, q, opt.Offset, limit, len(rows.Rows), rows.More)
	if !opt.Filter.IsZero() || opt.Offset > 0 {
		v.Grid.Footer = pageFooter(rows, opt, snapshotTotal(md, snap))
	}
	h.render(w, r, http.StatusOK, views.IcebergDataPage(v))
}

func snapshotOptions(md *iceberg.Metadata, selected int64) []views.SnapshotOption {
	var out []views.SnapshotOption
	for _, s := range md.Snapshots {
		label := fmt.Sprintf("%d · %s · %s · %s records", s.ID, s.Time.UTC().Format("2006-01-02 15:04:05 UTC"), icebergDash(s.Operation), icebergCount(s.TotalRecords))
		if s.Current {
			label += " (current)"
		}
		out = append(out, views.SnapshotOption{ID: strconv.FormatInt(s.ID, 10), Label: label, Selected: s.ID == selected})
	}
	return out
}

func snapshotTotal(md *iceberg.Metadata, id int64) int64 {
	for _, s := range md.Snapshots {
		if s.ID == id {
			return s.TotalRecords
		}
	}
	return -1
}

// icebergGrid turns the reader's page into the shared grid model.
func icebergGrid(rows *iceberg.Rows, total int64) views.Grid {
	g := views.Grid{}
	for _, c := range rows.Columns {
		g.Columns = append(g.Columns, views.GridColumn{Name: c.Name, Type: c.Type})
	}
	for _, row := range rows.Rows {
		cells := make([]views.GridCell, len(row))
		for i, c := range row {
			cells[i] = views.GridCell{Text: c.Text, Null: c.Null, Truncated: c.Truncated}
		}
		g.Rows = append(g.Rows, cells)
	}
	for _, n := range rows.Notes {
		if rows.HasDeleteFiles && strings.Contains(n, "delete files") {
			continue // the page's own warning says it
		}
		g.Notes = append(g.Notes, icebergSentence(n))
	}
	n := len(g.Rows)
	files := rows.FilesRead
	switch {
	case rows.More && total >= 0:
		g.Footer = fmt.Sprintf("First %s of %s rows of snapshot %d, read from %s.", groupDigits(int64(n)), groupDigits(total), rows.SnapshotID, icebergPlural(files, "data file", "data files"))
	case rows.More:
		g.Footer = fmt.Sprintf("First %s of snapshot %d, read from %s; the snapshot holds more.", icebergPlural(n, "row", "rows"), rows.SnapshotID, icebergPlural(files, "data file", "data files"))
	default:
		g.Footer = fmt.Sprintf("All %s of snapshot %d, read from %s.", icebergPlural(n, "row", "rows"), rows.SnapshotID, icebergPlural(files, "data file", "data files"))
	}
	return g
}

func icebergPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// icebergSentence capitalises a reader's note and ends it with a stop.
func icebergSentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

func icebergDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// icebergRowOptions reads Browse Data's column picks, filter and offset,
// and fills the picker from the table's columns (top level). A bad filter
// or offset sets the sentence next to its field; ok is then false.
func (h *Handlers) icebergRowOptions(r *http.Request, md *iceberg.Metadata, v *views.IcebergDataView) (iceberg.RowOptions, bool) {
	q := r.URL.Query()
	v.Errors = views.FieldErrors{}
	var opt iceberg.RowOptions
	for _, c := range q["col"] {
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(opt.Columns, c) {
			opt.Columns = append(opt.Columns, c)
		}
	}
	top := 0
	for _, c := range md.Columns {
		if c.Depth == 0 {
			top++
			v.Columns = append(v.Columns, views.ColumnChoice{Name: c.Name, Type: c.Type, Checked: len(opt.Columns) == 0 || slices.Contains(opt.Columns, c.Name)})
		}
	}
	if len(opt.Columns) == top {
		opt.Columns = nil // every column picked is the same as none
	}
	v.Filter = strings.TrimSpace(q.Get("filter"))
	f, err := iceberg.ParseFilter(v.Filter)
	if err != nil {
		v.Errors["filter"] = "The filter cannot be read: " + err.Error() + "."
		h.logError(r, http.StatusUnprocessableEntity, err)
		return opt, false
	}
	opt.Filter = f
	off, err := parseOffset(q)
	if err != nil {
		v.Error = sentenceOf(err)
		h.logError(r, http.StatusUnprocessableEntity, err)
		return opt, false
	}
	opt.Offset = off
	return opt, true
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pageFooter says which rows a filtered or later page shows.
func pageFooter(rows *iceberg.Rows, opt iceberg.RowOptions, total int64) string {
	n := int64(len(rows.Rows))
	what := "rows"
	if !opt.Filter.IsZero() {
		what = "matching rows"
	}
	s := fmt.Sprintf("%s %s–%s", capitalize(what), groupDigits(opt.Offset+min(n, 1)), groupDigits(opt.Offset+n))
	if n == 0 {
		s = "No " + what + fmt.Sprintf(" past the first %s", groupDigits(opt.Offset))
	}
	if opt.Filter.IsZero() && total >= 0 {
		s += " of " + groupDigits(total)
	}
	s += fmt.Sprintf(" of snapshot %d, read from %s", rows.SnapshotID, icebergPlural(rows.FilesRead, "data file", "data files"))
	if rows.More && !opt.Filter.IsZero() {
		s += "; more may match"
	}
	return s + "."
}
