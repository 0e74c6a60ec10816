package views

// Bar chart geometry of a job type's last 24 hours, in SVG user units:
// the left margin holds the y-axis labels, the bottom one the hours.
const (
	RateWidth  = 300
	RateHeight = 84
	RateLeft   = 34
	RateRight  = 4
	RateTop    = 8
	RateBottom = 18
)

// JobRateBar is one hour's finished jobs: the whole bar, and the failed
// part of it drawn over its foot.
type JobRateBar struct {
	X, W, Y, H float64 // all finished jobs
	FailY      float64 // top of the failed part (== the bottom when none failed)
	FailH      float64
	Label      string // tooltip: "11:00–12:00 UTC: 4 finished, 1 failed"
}

// JobRateRow is one job type on the Jobs page's throughput panel.
type JobRateRow struct {
	Type        string
	Finished    string // "12"
	PerHour     string // "0.5 jobs/h"
	Failed      string // "3"
	Canceled    string // "0"
	FailureRate string // "25 %", "—" with none finished
	AxisTop     string // the y-axis top: "4"
	Bars        []JobRateBar
	StartLabel  string // "12:00" (24 h ago)
	EndLabel    string // "now"
}

// JobRatesView is the Jobs page's throughput and failure rate per job
// type over the last 24 hours.
type JobRatesView struct {
	Hidden string // why the panel shows no figures to this user; "" shows them
	Error  string
	Rows   []JobRateRow
}
