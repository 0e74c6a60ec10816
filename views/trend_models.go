package views

// Trend chart geometry in SVG user units; the SVG scales to its box.
// The left margin holds the y-axis labels, the bottom one the times.
const (
	TrendWidth  = 640
	TrendHeight = 200
	TrendLeft   = 76
	TrendRight  = 12
	TrendTop    = 12
	TrendBottom = 30
)

// TrendTick is one labelled value on an axis; Pos is its y (value axis)
// or x (time axis) in user units.
type TrendTick struct {
	Pos   float64
	Label string
}

// TrendDot is one kept observation drawn as a dot with a tooltip; only
// for charts with few points (a thousand dots say nothing a line does not).
type TrendDot struct {
	X, Y  float64
	Label string
}

// TrendChart is one quantity (rows or bytes) of a table over time.
type TrendChart struct {
	ID     string // element id prefix and test id: "trend-rows", "trend-bytes"
	Title  string // "Rows over time"
	Unit   string // axis unit shown at the top of the y-axis: "rows", "bytes"
	Line   string // polyline points (a step line: a value holds until the next point)
	Points int    // observations drawn
	Latest string // the newest value, with its unit
	YTicks []TrendTick
	XTicks []TrendTick
	Dots   []TrendDot
}

// TrendView is a Trends panel: the table page's (one table's figures) or
// the bucket page's (its tables' totals).
type TrendView struct {
	TestID    string // "trend-panel" (table), "bucket-trends" (bucket)
	Heading   string // "Trends", "Totals over time"
	Off       bool   // history is switched off (--history-retention 0)
	Error     string // the kept observations could not be read
	Retention string // "90 days"
	Kept      int    // observations kept (that the charts are drawn from)
	Empty     string // the sentence shown while fewer than two are kept
	Note      string // the sentence above the charts
	Charts    []TrendChart
}
