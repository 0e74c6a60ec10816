package handlers

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/views"
)

const (
	// maxTrendPoints bounds the observations one chart draws (the newest).
	maxTrendPoints = 1000
	// maxTrendDots: charts with at most this many points also draw each
	// as a dot with a tooltip.
	maxTrendDots = 60
	// trendYTicks is about how many labelled values the y-axis gets.
	trendYTicks = 4
)

// trendView is the table page's Trends panel, or nil without an
// observation store.
func (h *Handlers) trendView(ctx context.Context, t catalog.Table) *views.TrendView {
	if h.observe == nil {
		return nil
	}
	ret := h.observe.HistoryRetention()
	v := &views.TrendView{TestID: "trend-panel", Heading: "Trends", Off: ret <= 0, Retention: retentionText(ret)}
	if v.Off {
		return v
	}
	pts, err := h.observe.History(ctx, t.ID, t.Format, time.Time{}, maxTrendPoints)
	if err != nil {
		h.log.Warn("reading a table's kept observations", "table", t.ID, "err", err)
		v.Error = "The kept observations could not be read just now; reload to try again."
		return v
	}
	v.Kept = len(pts)
	v.Empty = "The charts need two kept observations; " + strconv.Itoa(v.Kept) + " kept so far. floe keeps one each time a worker sees this table's rows or size change, for " + v.Retention + "."
	v.Note = strconv.Itoa(v.Kept) + " observations kept (for " + v.Retention + "); a value holds until the next change."
	if v.Kept >= 2 {
		v.Charts = trendCharts(pts, time.Now(), tableTrendTitles)
	}
	return v
}

// trendTitles name a Trends panel's two charts.
type trendTitles struct{ rows, bytes string }

var tableTrendTitles = trendTitles{rows: "Rows over time", bytes: "Size over time"}

// retentionText: 90 days → "90 days", 36h → "36h0m0s".
func retentionText(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d == day:
		return "1 day"
	case d > 0 && d%day == 0:
		return strconv.FormatInt(int64(d/day), 10) + " days"
	}
	return d.String()
}

// trendCharts lays out the rows and bytes of pts (oldest first) over time,
// up to now (a value holds until the next point); a quantity no point
// carries gets no chart. Both the table's and the bucket's panels draw
// through it.
func trendCharts(pts []observe.Point, now time.Time, titles trendTitles) []views.TrendChart {
	if len(pts) == 0 {
		return nil
	}
	start, end := pts[0].At, pts[len(pts)-1].At
	if now.After(end) {
		end = now
	}
	if !end.After(start) {
		end = start.Add(time.Minute)
	}
	var rows, bytes []timedValue
	for _, p := range pts {
		if p.HasRows {
			rows = append(rows, timedValue{p.At, max(p.Rows, 0)})
		}
		if p.HasBytes {
			bytes = append(bytes, timedValue{p.At, max(p.Bytes, 0)})
		}
	}
	xs := timeAxis(start, end)
	var out []views.TrendChart
	if len(rows) > 0 {
		out = append(out, layoutTrend("trend-rows", titles.rows, "rows", rows, start, end, xs, rowScale))
	}
	if len(bytes) > 0 {
		out = append(out, layoutTrend("trend-bytes", titles.bytes, "bytes", bytes, start, end, xs, byteScale))
	}
	return out
}

type timedValue struct {
	at time.Time
	v  int64
}

// scale picks the top of a y-axis for a maximum, its step and how a value
// on it reads.
type scale func(top int64) (axisTop, step float64, label func(float64) string, latest func(int64) string)

func layoutTrend(id, title, unit string, vals []timedValue, start, end time.Time, xs []views.TrendTick, sc scale) views.TrendChart {
	var top int64
	for _, tv := range vals {
		top = max(top, tv.v)
	}
	axisTop, step, label, latest := sc(top)
	const (
		left, right  = float64(views.TrendLeft), float64(views.TrendWidth - views.TrendRight)
		upper, lower = float64(views.TrendTop), float64(views.TrendHeight - views.TrendBottom)
	)
	span := float64(end.Sub(start))
	x := func(t time.Time) float64 { return left + float64(t.Sub(start))/span*(right-left) }
	y := func(v int64) float64 { return lower - float64(v)/axisTop*(lower-upper) }
	c := views.TrendChart{ID: id, Title: title, Unit: unit, Points: len(vals), Latest: latest(vals[len(vals)-1].v), XTicks: xs}
	for v := 0.0; v <= axisTop*(1+1e-9); v += step {
		c.YTicks = append(c.YTicks, views.TrendTick{Pos: lower - v/axisTop*(lower-upper), Label: label(v)})
	}
	buf := make([]byte, 0, len(vals)*24+16)
	pt := func(px, py float64) {
		if len(buf) > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendFloat(buf, px, 'f', 1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, py, 'f', 1, 64)
	}
	for i, tv := range vals {
		px, py := x(tv.at), y(tv.v)
		if i > 0 {
			pt(px, y(vals[i-1].v)) // the previous value held until now
		}
		pt(px, py)
		if len(vals) <= maxTrendDots {
			c.Dots = append(c.Dots, views.TrendDot{X: px, Y: py, Label: tv.at.UTC().Format("2006-01-02 15:04:05 UTC") + ": " + latest(tv.v)})
		}
	}
	pt(right, y(vals[len(vals)-1].v))
	c.Line = string(buf)
	return c
}

// timeAxis labels the start, the middle and the end of the span: clock
// times within a day, dates with times beyond.
func timeAxis(start, end time.Time) []views.TrendTick {
	layout := "Jan 2 15:04"
	if end.Sub(start) < 24*time.Hour && start.UTC().YearDay() == end.UTC().YearDay() {
		layout = "15:04:05"
	}
	left, right := float64(views.TrendLeft), float64(views.TrendWidth-views.TrendRight)
	mid := start.Add(end.Sub(start) / 2)
	return []views.TrendTick{
		{Pos: left, Label: start.UTC().Format(layout)},
		{Pos: (left + right) / 2, Label: mid.UTC().Format(layout)},
		{Pos: right, Label: end.UTC().Format(layout) + " UTC"},
	}
}

// niceStep is a step of 1, 2 or 5 × 10^k close to raw (> 0).
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / mag; {
	case f <= 1:
		return mag
	case f <= 2:
		return 2 * mag
	case f <= 5:
		return 5 * mag
	}
	return 10 * mag
}

// niceAxis is a step and a top that is a whole number of steps ≥ top.
func niceAxis(top float64, minStep float64) (axisTop, step float64) {
	step = max(niceStep(top/trendYTicks), minStep)
	axisTop = math.Ceil(top/step) * step
	if axisTop <= 0 {
		axisTop = step
	}
	return axisTop, step
}

// rowScale labels counts compactly: 0, 2.5k, 10k, 1.5M.
func rowScale(top int64) (float64, float64, func(float64) string, func(int64) string) {
	axisTop, step := niceAxis(float64(top), 1)
	return axisTop, step, compactCount, func(n int64) string { return groupDigits(n) + " rows" }
}

func compactCount(v float64) string {
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			return trimFloat(v/u.div) + u.suffix
		}
	}
	return trimFloat(v)
}

// byteScale picks a binary unit for the largest value and steps in it:
// 0, 512 MiB, 1 GiB… read as "0 B", "512 MiB", "1,024 MiB" stays in one unit.
func byteScale(top int64) (float64, float64, func(float64) string, func(int64) string) {
	unit, name := 1.0, "B"
	for i, n := range []string{"KiB", "MiB", "GiB", "TiB", "PiB"} {
		if float64(top) >= math.Pow(1024, float64(i+1)) {
			unit, name = math.Pow(1024, float64(i+1)), n
		}
	}
	axisTopU, stepU := niceAxis(float64(top)/unit, 0)
	if name == "B" {
		axisTopU, stepU = niceAxis(float64(top), 1)
	}
	label := func(v float64) string { return trimFloat(v/unit) + " " + name }
	return axisTopU * unit, stepU * unit, label, humanBytes
}

// trimFloat: 2 → "2", 2.5 → "2.5", 0.25 → "0.25".
func trimFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-0" {
		return "0"
	}
	return s
}
