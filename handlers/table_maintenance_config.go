package handlers

import (
	"context"
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/form"
	"github.com/floe/floe/views"
)

// maintKindTitles name the governed job types for people.
var maintKindTitles = map[string]string{
	"iceberg_compact": "Compaction", "iceberg_expire_snapshots": "Snapshot expiry", "iceberg_remove_orphans": "Orphan file removal",
	"lance_compact": "Compaction", "lance_cleanup": "Old version cleanup",
}

// maintStatusField is the switch of a table's own setting.
var maintStatusField = form.Field{Name: "status", Label: "Scheduled", Type: form.Select, Required: true,
	Options: []form.Option{{Value: "enabled"}, {Value: "disabled"}},
	Help:    "Whether detection may schedule this maintenance on this table."}

// maintFields are the form of one kind: the switch, then one optional
// whole number per setting the job type honours (empty: inherit it).
func maintFields(job catalog.MaintenanceJob) []form.Field {
	out := []form.Field{maintStatusField}
	for _, m := range job.Settings {
		lo, hi := catalog.MaintenanceSettingBounds(m.Name)
		flo, fhi := float64(lo), float64(hi)
		out = append(out, form.Field{Name: m.Name, Label: m.Label, Type: form.Int, Min: &flo, Max: &fhi})
	}
	return out
}

// sourceText says where a value comes from, for people and for tests.
func sourceText(src catalog.MaintenanceSource) (text, key string) {
	switch src {
	case catalog.FromTable:
		return "this table", "table"
	case catalog.FromBucket:
		return "the bucket", "bucket"
	case catalog.FromAllBuckets:
		return "every bucket's setting", "all"
	}
	return "default", "default"
}

// maintRefill is what a refused form sent, to show again with its errors.
type maintRefill struct {
	kind   string
	text   map[string]string
	errs   views.FieldErrors
	notice string
}

// maintConfig builds the tab's configuration section for table t.
func (h *Handlers) maintConfig(ctx context.Context, t catalog.Table, base string, canEdit bool, refill *maintRefill) (*views.MaintConfigView, error) {
	on, _, err := h.store.DestructiveMaintenance(ctx, t.Bucket)
	if err != nil {
		return nil, err
	}
	cv := &views.MaintConfigView{URL: base + "/config", CanEdit: canEdit, DestructiveOn: on, SafetyURL: views.BucketURL(t.Bucket) + "#safety"}
	for _, job := range catalog.MaintenanceJobsOf(t.Format) {
		res, err := h.store.ResolveMaintenance(ctx, t, job.Kind)
		if err != nil {
			return nil, err
		}
		k := views.MaintKindView{Kind: string(job.Kind), Title: maintKindTitles[job.JobType], JobType: job.JobType,
			Destructive: job.Kind.Destructive(), BucketLevel: !kindOnTables(job.Kind), Enabled: res.Enabled, Own: res.OwnStored}
		k.EnabledFrom, _ = sourceText(res.EnabledFrom)
		jobVals := h.jobTypeValues(job.JobType)
		for _, m := range job.Settings {
			sv := views.MaintSettingView{Name: m.Name, Label: m.Label}
			if n := res.Settings.Int(m.Name); n != 0 {
				sv.Value = strconv.Itoa(n)
				sv.From, sv.FromKey = sourceText(res.From[m.Name])
			} else {
				sv.Value, sv.From, sv.FromKey = jobTypeDefault(jobVals, m), "the job type's default", "jobtype"
			}
			k.Settings = append(k.Settings, sv)
		}
		k.Note = maintNote(t.Bucket, k, on)
		if canEdit && !k.BucketLevel {
			text := ownText(job, res)
			if refill != nil && refill.kind == k.Kind {
				text, k.Errors, k.Notice = refill.text, refill.errs, refill.notice
			}
			k.Fields = fieldViews(maintFields(job), text, inputNaming{idPrefix: k.Kind + "-",
				testIDs: func(name string) (string, string) {
					return "maint-field-" + k.Kind + "-" + name, "maint-" + k.Kind + "-" + name
				}})
			for i, f := range k.Fields {
				if i > 0 {
					k.Fields[i].Help = "Empty: inherit (now " + k.Settings[i-1].Value + ", from " + k.Settings[i-1].From + ")."
				} else {
					k.Fields[i].Help = f.Help
				}
			}
		}
		cv.Kinds = append(cv.Kinds, k)
	}
	return cv, nil
}

func kindOnTables(kind catalog.MaintenanceKind) bool {
	for _, k := range catalog.TableMaintenanceKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// ownText fills a kind's form with the table's own setting: its switch
// (else the effective one) and the settings it sets itself (else empty).
func ownText(job catalog.MaintenanceJob, res catalog.ResolvedMaintenance) map[string]string {
	enabled := res.Enabled
	if res.OwnStored {
		enabled = res.OwnEnabled
	}
	text := map[string]string{"status": map[bool]string{true: "enabled", false: "disabled"}[enabled]}
	for _, m := range job.Settings {
		if n := res.Own.Int(m.Name); res.OwnStored && n != 0 {
			text[m.Name] = strconv.Itoa(n)
		}
	}
	return text
}

// maintNote says what the bucket's destructive-maintenance switch means for
// a kind that deletes data, or where a bucket-level kind is set.
func maintNote(bucket string, k views.MaintKindView, on bool) string {
	switch {
	case k.BucketLevel:
		return "Set per bucket, not per table: with the S3 Tables API's PutTableBucketMaintenanceConfiguration, or switched with bucket " + bucket + "'s destructive maintenance (its safety settings)."
	case k.Destructive && !on && k.Enabled:
		return "This deletes data. Bucket " + bucket + "'s destructive maintenance is off, but this table's own setting (put through the S3 Tables API) turns it on; the console can switch it off or reset it to inherit."
	case k.Destructive && !on:
		return "This deletes data, and bucket " + bucket + "'s destructive maintenance is off, so it stays disabled here until a manager of the bucket turns that on in its safety settings."
	case k.Destructive:
		return "This deletes data; bucket " + bucket + " allows that on a schedule (its destructive maintenance is on)."
	}
	return ""
}

// jobTypeValues are a job type's current settings, defaults filled in
// (nil when no worker has described it).
func (h *Handlers) jobTypeValues(jobType string) map[string]string {
	if h.plugin == nil {
		return nil
	}
	st, err := h.plugin.Settings(jobType)
	if err != nil {
		return nil
	}
	return st.Values
}

// jobTypeDefault is the job type's value standing for an unset setting, in
// the setting's unit.
func jobTypeDefault(vals map[string]string, m catalog.MaintenanceJobSetting) string {
	v, ok := vals[m.JobSetting]
	if !ok || v == "" {
		return "set by the job type (no worker has described it yet)"
	}
	if m.ParamHours > 1 {
		if n, err := strconv.Atoi(v); err == nil {
			if n%m.ParamHours == 0 {
				return strconv.Itoa(n / m.ParamHours)
			}
			return strconv.FormatFloat(float64(n)/float64(m.ParamHours), 'f', 1, 64)
		}
	}
	return v
}
