package iceworker

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
)

// Outcome ends one job: a summary for people and result figures.
type Outcome struct {
	Summary string
	Result  map[string]string
}

// JobError is a job that did not do its work; Permanent marks one any
// retry would repeat (a Lance table, delete files, a setting out of range).
type JobError struct {
	Permanent bool
	Message   string
}

func (e *JobError) Error() string { return e.Message }

func refuse(format string, args ...any) error {
	return &JobError{Permanent: true, Message: fmt.Sprintf(format, args...)}
}

// Progress reports a job's stage and percent.
type Progress func(stage string, percent float64, message string)

// Job is everything one execution needs.
type Job struct {
	Type     string
	Ref      TableRef
	Settings Settings
	Catalog  *Catalog
	Files    Files
	Now      func() time.Time
	Progress Progress

	// nested are the locations of other tables inside this one's, once
	// nestedKnown (orphan removal and its detection never list them).
	nested      []string
	nestedKnown bool
}

// Run executes the job.
func (j *Job) Run(ctx context.Context) (Outcome, error) {
	if j.Progress == nil {
		j.Progress = func(string, float64, string) {}
	}
	tbl, err := j.Catalog.Load(ctx, j.Ref)
	if err != nil {
		return Outcome{}, err
	}
	if err := refuseForeign(j.Ref, tbl); err != nil {
		return Outcome{}, err
	}
	switch j.Type {
	case JobExpire:
		return j.expire(ctx, tbl)
	case JobOrphans:
		return j.removeOrphans(ctx, tbl)
	case JobCompact:
		return j.compact(ctx, tbl)
	case JobManifests:
		return j.rewriteManifests(ctx, tbl)
	}
	return Outcome{}, refuse("this worker does not offer job type %q", j.Type)
}

// isLance says whether properties mark a table as a Lance dataset
// registered through an Iceberg adapter.
func isLance(props map[string]string) bool {
	for k, v := range props {
		if strings.EqualFold(k, "table_type") && strings.EqualFold(strings.TrimSpace(v), "lance") {
			return true
		}
	}
	return false
}

// refuseForeign stops every job on a table that is not an Iceberg table
// of its own: a Lance dataset seen through an Iceberg adapter looks like an
// Iceberg table whose every file is an orphan.
func refuseForeign(ref TableRef, tbl *table.Table) error {
	if isLance(ref.Properties) || isLance(tbl.Properties()) {
		return refuse("%s is marked table_type=lance: it is a Lance dataset seen through an Iceberg adapter, and Iceberg maintenance would destroy it; nothing was touched", ref.Ident())
	}
	return nil
}

// isPermanent reports whether err says a retry is pointless.
func isPermanent(err error) bool {
	var je *JobError
	if errors.As(err, &je) {
		return je.Permanent
	}
	var se *SettingsError
	return errors.As(err, &se)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// sortedKeys returns a set's members in order (for stable results).
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// now is the job's clock (tests may set Now).
func (j *Job) now() time.Time {
	if j.Now == nil {
		return time.Now()
	}
	return j.Now()
}
