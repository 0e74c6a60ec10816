// Package health says, per table, whether maintenance is due: a state
// (healthy, attention, needs maintenance, or unknown when no worker has
// looked) and the reasons behind it, each naming the figure, the threshold
// it was held against and the job that clears it. It reads the latest
// observations and the job types' settings; it knows nothing of HTTP or
// HTML, and it never reads storage.
package health

import (
	"fmt"
	"time"
)

// State is a table's health. The order matters: a report takes the worst
// state of its reasons.
type State int

const (
	// Unknown: no worker has observed the table, or the observation says
	// nothing this package can judge. Never shown as healthy.
	Unknown State = iota
	// Healthy: every rule is under its threshold.
	Healthy
	// Attention: a figure is on its way to a threshold, or something is off
	// that no job fixes; nothing is urgent.
	Attention
	// NeedsMaintenance: a figure passed the threshold at which detection
	// would propose the job that clears it.
	NeedsMaintenance
)

// String is the state's word as the console and the README print it.
func (s State) String() string {
	switch s {
	case Healthy:
		return "healthy"
	case Attention:
		return "attention"
	case NeedsMaintenance:
		return "needs maintenance"
	}
	return "unknown"
}

// Slug is the state as one lower-case token (CSS classes, query values).
func (s State) Slug() string {
	switch s {
	case Healthy:
		return "healthy"
	case Attention:
		return "attention"
	case NeedsMaintenance:
		return "needs-maintenance"
	}
	return "unknown"
}

// Reason is one rule that fired: what it measured, the figure, the
// threshold and the job that clears it ("" when no job does).
type Reason struct {
	Rule      string // stable id, e.g. "lance.small_fragments"
	State     State  // Attention or NeedsMaintenance
	What      string // "small fragments"
	Figure    int64
	Threshold int64
	Unit      string // "fragments", "rows", "bytes", …
	Job       string // job type that clears it
	// DeletesData marks a job that removes files (old versions, expired
	// snapshots, orphans): the console asks before running it.
	DeletesData bool
	// Params are the job's parameters when it needs more than its
	// defaults (cleanup's retention, from the same settings detection uses).
	Params map[string]string
	Note   string // one sentence more, e.g. why it matters
}

// Sentence renders the reason for people: "12 small fragments (threshold
// 8) — lance_compact clears it".
func (r Reason) Sentence() string {
	s := fmt.Sprintf("%s: %s, threshold %s", r.What, Amount(r.Figure, r.Unit), Amount(r.Threshold, r.Unit))
	if r.Note != "" {
		s += ". " + r.Note
	}
	if r.Job != "" {
		s += " (" + r.Job + " clears it)"
	}
	return s
}

// Report is one table's health.
type Report struct {
	State      State
	Reasons    []Reason
	ObservedAt time.Time // zero: never observed
	// Summary is one line for a badge's title: the reasons, or why the
	// state is unknown, or "every figure under its threshold".
	Summary string
}

// Jobs are the distinct job types that clear the report's reasons, in the
// order the reasons came, with their parameters.
func (r Report) Jobs() []Reason {
	var out []Reason
	seen := map[string]bool{}
	for _, x := range r.Reasons {
		if x.Job == "" || seen[x.Job] {
			continue
		}
		seen[x.Job] = true
		out = append(out, x)
	}
	return out
}

// NeedsAttention is true for attention and needs maintenance: what the
// "needs attention" filter and the bucket counts select.
func (r Report) NeedsAttention() bool { return r.State >= Attention }

// build settles a report from its reasons.
func build(observedAt time.Time, reasons []Reason) Report {
	r := Report{State: Healthy, Reasons: reasons, ObservedAt: observedAt, Summary: "every figure is under its threshold"}
	for i, x := range reasons {
		r.State = max(r.State, x.State)
		if i == 0 {
			r.Summary = x.Sentence()
		} else {
			r.Summary += "; " + x.Sentence()
		}
	}
	return r
}

// unknown is the report of a table nobody has looked at (or whose
// observation cannot be judged); why says which.
func unknown(observedAt time.Time, why string) Report {
	return Report{State: Unknown, ObservedAt: observedAt, Summary: why}
}

// NotObserved is the report of a table no worker has observed yet.
func NotObserved() Report { return unknown(time.Time{}, "unknown, not observed yet") }

// Amount is a figure with its unit: "12 fragments", "5.3 MiB".
func Amount(n int64, unit string) string {
	if unit == "bytes" || unit == "" {
		return Figure(n, unit)
	}
	return Figure(n, unit) + " " + unit
}

// Figure renders a whole number for people: bytes in binary units, every
// other unit with thousands separators.
func Figure(n int64, unit string) string {
	if unit == "bytes" {
		return Bytes(n)
	}
	return Group(n)
}

// Group writes n with thousands separators: 12345 → "12,345".
func Group(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// Bytes renders a size in binary units with one decimal: "5.3 MiB".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
