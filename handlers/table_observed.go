package handlers

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/views"
)

// Chart geometry: the viewBox of views/table_observed.templ.
const (
	chartWidth  = views.ChartWidth
	chartHeight = views.ChartHeight
	chartPad    = views.ChartPad
)

// maxChartVersions bounds the points drawn: the newest versions tell the
// story, and every point is a DOM node.
const maxChartVersions = 200

// observedView reads what the last worker said about a Lance table; nil
// when this console has no observation store.
func (h *Handlers) observedView(t catalog.Table) *views.ObservedView {
	if h.observe == nil {
		return nil
	}
	v := &views.ObservedView{Now: time.Now()}
	st, ok := h.observe.Stats(t.ID, catalog.FormatLance)
	if !ok {
		return v
	}
	v.Found, v.ObservedAt, v.WorkerID = true, st.ObservedAt, st.WorkerID
	v.Rows, v.Fragments, v.SmallFragments = count(st.Rows), count(st.Fragments), count(st.SmallFragments)
	v.Version, v.Versions = count(st.Version), count(st.Versions)
	v.Bytes = "—"
	if st.Bytes != nil {
		v.Bytes = humanBytes(*st.Bytes)
	}
	v.Schema = schemaNodes(st.Schema)
	for _, ix := range st.Indices {
		row := views.IndexRow{Name: ix.Name, Type: ix.Type, Columns: strings.Join(ix.Columns, ", "),
			Indexed: groupDigits(ix.IndexedRows), Unindexed: groupDigits(ix.UnindexedRows), Coverage: -1}
		if c := ix.Coverage(); c >= 0 {
			row.Coverage = int(c * 100) // floor: 99.9% indexed is not "100%"
		}
		v.Indices = append(v.Indices, row)
	}
	hist := slices.Clone(st.History)
	slices.SortFunc(hist, func(a, b observe.HistoryEntry) int { return cmp.Compare(b.Version, a.Version) })
	for _, e := range hist {
		v.History = append(v.History, views.VersionRow{Version: strconv.FormatInt(e.Version, 10), When: e.Timestamp,
			Rows: groupDigits(e.Rows), Fragments: groupDigits(e.Fragments), Bytes: humanBytes(e.Bytes)})
	}
	v.Chart = versionChart(hist)
	return v
}

func count(n *int64) string {
	if n == nil {
		return "—"
	}
	return groupDigits(*n)
}

func schemaNodes(fs []observe.Field) []views.SchemaNode {
	out := make([]views.SchemaNode, 0, len(fs))
	for _, f := range fs {
		out = append(out, views.SchemaNode{Name: f.Name, Type: f.TypeString(), Nullable: f.Nullable, Children: schemaNodes(f.Children)})
	}
	return out
}

// versionChart lays out rows and bytes per version, oldest left; hist is
// newest first. Each line is scaled to its own maximum.
func versionChart(hist []observe.HistoryEntry) views.VersionChart {
	n := min(len(hist), maxChartVersions)
	if n == 0 {
		return views.VersionChart{}
	}
	pts := make([]observe.HistoryEntry, n)
	for i := range n {
		pts[i] = hist[n-1-i]
	}
	var maxRows, maxBytes int64
	for _, e := range pts {
		maxRows, maxBytes = max(maxRows, e.Rows), max(maxBytes, e.Bytes)
	}
	y := func(v, top int64) int {
		if top <= 0 {
			return chartHeight - chartPad
		}
		return chartHeight - chartPad - int(float64(v)/float64(top)*float64(chartHeight-2*chartPad))
	}
	c := views.VersionChart{MaxRows: groupDigits(maxRows), MaxBytes: humanBytes(maxBytes),
		FirstLabel: "v" + strconv.FormatInt(pts[0].Version, 10), LastLabel: "v" + strconv.FormatInt(pts[n-1].Version, 10)}
	var rows, bytes strings.Builder
	for i, e := range pts {
		x := chartPad
		if n > 1 {
			x = chartPad + i*(chartWidth-2*chartPad)/(n-1)
		}
		p := views.ChartPoint{X: x, YRows: y(e.Rows, maxRows), YBytes: y(e.Bytes, maxBytes),
			Label: fmt.Sprintf("version %d: %s rows, %s", e.Version, groupDigits(e.Rows), humanBytes(e.Bytes))}
		c.Points = append(c.Points, p)
		fmt.Fprintf(&rows, "%d,%d ", p.X, p.YRows)
		fmt.Fprintf(&bytes, "%d,%d ", p.X, p.YBytes)
	}
	c.RowsLine, c.BytesLine = strings.TrimSpace(rows.String()), strings.TrimSpace(bytes.String())
	return c
}

// humanBytes: 1,536 → "1.5 KiB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
