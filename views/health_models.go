package views

import "time"

// HealthBadgeView is a table's health badge: its state and the reasons
// behind it (the badge's title, and a list where there is room).
type HealthBadgeView struct {
	State   string // slug: healthy, attention, needs-maintenance, unknown
	Label   string // "needs maintenance"
	Summary string // one line: the reasons, or why the state is unknown
	Reasons []HealthReasonView
	Whats   string // the reasons' names in a few words ("small fragments, data manifests"), for lists
}

// HealthReasonView is one reason.
type HealthReasonView struct {
	Rule      string
	State     string // slug
	What      string // "small fragments"
	Figure    string // "12 fragments"
	Threshold string // "8 fragments"
	Note      string
	Job       string // job type that clears it; "" when none does
}

// HealthPanelView is the table page's health panel with its Fix control.
type HealthPanelView struct {
	Badge      HealthBadgeView
	ObservedAt time.Time
	FixURL     string // GET loads the Fix control, POST submits; "" = no control
}

// HealthFixView is the Fix control: the jobs it would submit, the
// progress of those it did, and whether it asks before deleting data.
type HealthFixView struct {
	URL      string
	TableURL string
	LiveURL  string
	CanWrite bool
	Jobs     []string // job types Fix submits
	Deletes  []string // of them, the ones that delete data (asked first)
	Running  []JobProgressView
	RunHrefs []string
	Notice   string
	Waiting  bool // no worker offers a job type it needs
	// OwnRefresh: this control carries the page's table-refresh slot
	// (tables without a Compact now control, which otherwise carries it).
	OwnRefresh bool
}

// ConfirmText is the question asked before Fix runs a job that deletes.
func (v HealthFixView) ConfirmText() string {
	if len(v.Deletes) == 0 {
		return ""
	}
	s := "Fix runs "
	for i, d := range v.Deletes {
		if i > 0 {
			s += ", "
		}
		s += d
	}
	return s + ", which deletes data (old versions, expired snapshots or orphan files) that time travel could still reach. Continue?"
}

// BucketHealth is a bucket row's sums.
type BucketHealth struct {
	Rows, Size     string // "—" when no table was observed
	NeedsAttention int
	Observed       int
}

// TableListExtra are the namespace list's observed columns of one table.
type TableListExtra struct {
	Size       string
	Version    string
	LastChange time.Time
	Health     HealthBadgeView
	// FixURL: POST submits the jobs that clear the reasons (then the table
	// page shows their progress); "" = no Fix on this row. FixConfirm is
	// asked first when a job deletes data.
	FixURL, FixConfirm string
}

// queryNote adds the name filter to an empty-state sentence.
func queryNote(q string, start bool) string {
	switch {
	case q == "":
		return ""
	case start:
		return " among names starting with “" + q + "”"
	}
	return " among names containing “" + q + "”"
}
