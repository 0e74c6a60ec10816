package handlers

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/observe"
	"github.com/floe/floe/views"
)

var trendT0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func TestTrendChartsLayout(t *testing.T) {
	pts := []observe.Point{
		{At: trendT0, Rows: 1000, HasRows: true, Bytes: 3 << 20, HasBytes: true},
		{At: trendT0.Add(time.Hour), Rows: 20000, HasRows: true, Bytes: 60 << 20, HasBytes: true},
		{At: trendT0.Add(2 * time.Hour), Rows: 18000, HasRows: true}, // no size said
	}
	charts := trendCharts(pts, trendT0.Add(4*time.Hour), tableTrendTitles)
	if len(charts) != 2 || charts[0].ID != "trend-rows" || charts[1].ID != "trend-bytes" {
		t.Fatalf("charts %+v", charts)
	}
	rows, size := charts[0], charts[1]
	if rows.Points != 3 || size.Points != 2 || rows.Latest != "18,000 rows" || size.Latest != "60.0 MiB" {
		t.Errorf("rows %d %q, bytes %d %q", rows.Points, rows.Latest, size.Points, size.Latest)
	}
	labels := func(ts []views.TrendTick) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.Label)
		}
		return strings.Join(s, "|")
	}
	if got := labels(rows.YTicks); got != "0|5k|10k|15k|20k" {
		t.Errorf("rows y-axis %q", got)
	}
	if got := labels(size.YTicks); got != "0 MiB|20 MiB|40 MiB|60 MiB" {
		t.Errorf("bytes y-axis %q", got)
	}
	if got := labels(rows.XTicks); got != "10:00:00|12:00:00|14:00:00 UTC" {
		t.Errorf("time axis %q", got)
	}
	// A step line: each value holds until the next point, the last one
	// until now (the right edge); 20k is the top of the plot, 0 its bottom.
	want := "76.0,162.1 214.0,162.1 214.0,12.0 352.0,12.0 352.0,27.8 628.0,27.8"
	if !strings.HasPrefix(rows.Line, "76.0,") || rows.Line != want {
		t.Errorf("rows line %q, want %q", rows.Line, want)
	}
	if len(rows.Dots) != 3 || rows.Dots[1].Label != "2026-12-01 11:00:00 UTC: 20,000 rows" {
		t.Errorf("dots %+v", rows.Dots)
	}
	if got := labels(trendCharts(pts[:1], trendT0.Add(72*time.Hour), tableTrendTitles)[0].XTicks); got != "Dec 1 10:00|Dec 2 22:00|Dec 4 10:00 UTC" {
		t.Errorf("days axis %q", got)
	}
}

func TestTrendAxes(t *testing.T) {
	for _, tc := range []struct {
		top  int64
		want string
	}{{0, "0|1"}, {3, "0|1|2|3"}, {999, "0|500|1k"}, {1_234_567, "0|500k|1M|1.5M"}} {
		top, step, label, _ := rowScale(tc.top)
		var s []string
		for v := 0.0; v <= top; v += step {
			s = append(s, label(v))
		}
		if got := strings.Join(s, "|"); got != tc.want {
			t.Errorf("rows top %d: %q, want %q", tc.top, got, tc.want)
		}
	}
	for _, tc := range []struct {
		top  int64
		want string
	}{{0, "0 B|1 B"}, {700, "0 B|200 B|400 B|600 B|800 B"}, {5 << 30, "0 GiB|2 GiB|4 GiB|6 GiB"}, {1536, "0 KiB|0.5 KiB|1 KiB|1.5 KiB"}} {
		top, step, label, _ := byteScale(tc.top)
		var s []string
		for v := 0.0; v <= top*(1+1e-9); v += step {
			s = append(s, label(v))
		}
		if got := strings.Join(s, "|"); got != tc.want {
			t.Errorf("bytes top %d: %q, want %q", tc.top, got, tc.want)
		}
	}
	if got := retentionText(90 * 24 * time.Hour); got != "90 days" {
		t.Errorf("retention %q", got)
	}
}

// benchTrendPoints is n observations a minute apart, rows and size growing.
func benchTrendPoints(n int) []observe.Point {
	pts := make([]observe.Point, n)
	for i := range pts {
		pts[i] = observe.Point{At: trendT0.Add(time.Duration(i) * time.Minute), Rows: int64(i) * 1000, HasRows: true,
			Bytes: int64(i) << 20, HasBytes: true, Version: int64(i + 1)}
	}
	return pts
}

// BenchmarkTrendChart is a Trends panel of 1,000 kept observations (both
// charts: layout and SVG render). Target: ≤ 10 ms; the ratio metric is the
// measured time over that target (≤ 1 meets it).
func BenchmarkTrendChart(b *testing.B) {
	pts := benchTrendPoints(1000)
	now := trendT0.Add(1001 * time.Minute)
	var buf bytes.Buffer
	start := time.Now()
	for b.Loop() {
		buf.Reset()
		v := views.TrendView{Retention: "90 days", Kept: len(pts), Charts: trendCharts(pts, now, tableTrendTitles)}
		if err := views.TrendPanel(v).Render(context.Background(), &buf); err != nil {
			b.Fatal(err)
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(10*time.Millisecond), "of-10ms-target")
	b.ReportMetric(float64(buf.Len()), "svg-bytes")
	if !strings.Contains(buf.String(), fmt.Sprintf(`data-points="%d"`, len(pts))) {
		b.Fatal("the chart does not draw every point")
	}
}
