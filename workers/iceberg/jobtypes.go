package iceworker

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/floe/floe/plugin/pluginpb"
)

// Job types this worker offers, all in the "iceberg" lane.
const (
	JobExpire    = "iceberg_expire_snapshots"
	JobOrphans   = "iceberg_remove_orphans"
	JobCompact   = "iceberg_compact"
	JobManifests = "iceberg_rewrite_manifests"

	lane = "iceberg"
	// descriptorVersion changes whenever a form or default below changes,
	// so the console asks for the descriptors again.
	descriptorVersion = "2026-12-02.1"
)

// JobTypes lists the job types in the order they matter most.
var JobTypes = []string{JobExpire, JobOrphans, JobCompact, JobManifests}

// field is one setting: its form and its default, defined once; the
// descriptor and the settings reader both come from it.
type field struct {
	name, label, help string
	kind              pluginpb.FieldType
	def               float64 // bools: 0 or 1
	min, max          float64
}

type jobType struct {
	name, display, description string
	fields                     []field
	detectEvery                int32 // seconds between detections
}

const mib = 1 << 20

var jobTypes = map[string]jobType{
	JobExpire: {
		name: JobExpire, display: "Iceberg: expire snapshots", detectEvery: 3600,
		description: "Removes old snapshots (never one a branch or tag points to) and deletes the manifests, manifest lists and data files no remaining snapshot needs. Time travel to an expired snapshot ends.",
		fields: []field{
			{name: "max_snapshot_age_hours", label: "Expire snapshots older than (hours)", kind: pluginpb.FieldType_FIELD_TYPE_INT, def: 120, min: 0, max: 100000,
				help: "Snapshots older than this may go; 0 means age alone never keeps a snapshot."},
			{name: "retain_last", label: "Always keep the last", kind: pluginpb.FieldType_FIELD_TYPE_INT, def: 5, min: 1, max: 100000,
				help: "The newest snapshots of the main branch kept whatever their age."},
			{name: "dry_run", label: "Dry run", kind: pluginpb.FieldType_FIELD_TYPE_BOOL, def: 0,
				help: "List the snapshots that would expire and the files and bytes that would be deleted; commit and delete nothing."},
		},
	},
	JobOrphans: {
		name: JobOrphans, display: "Iceberg: remove orphan files", detectEvery: 6 * 3600,
		description: "Deletes files under the table's location that no metadata references and that are older than the threshold. Never touches a table marked table_type=lance.",
		fields: []field{
			{name: "older_than_hours", label: "Only files older than (hours)", kind: pluginpb.FieldType_FIELD_TYPE_INT, def: 72, min: 1, max: 100000,
				help: "A younger file may belong to a commit in flight; 72 hours (3 days) is the usual margin."},
			{name: "dry_run", label: "Dry run", kind: pluginpb.FieldType_FIELD_TYPE_BOOL, def: 0,
				help: "List what would be deleted and delete nothing."},
			{name: "min_orphans", label: "Propose from this many orphans", kind: pluginpb.FieldType_FIELD_TYPE_INT, def: 1, min: 1, max: 1e9,
				help: "Detection proposes a table when it has at least this many old orphan files."},
		},
	},
	JobCompact: {
		name: JobCompact, display: "Iceberg: compact data files", detectEvery: 3600,
		description: "Bin-packs small data files of each partition into files near the target size and commits a replace snapshot; rows are the same before and after. Tables with delete files are refused.",
		fields: []field{
			{name: "target_file_size_mb", label: "Target file size (MiB)", kind: pluginpb.FieldType_FIELD_TYPE_INT, def: 512, min: 1, max: 1 << 16,
				help: "Size the rewritten files aim for."},
			{name: "min_input_files", label: "Minimum small files per partition", kind: pluginpb.FieldType_FIELD_TYPE_INT, def: 5, min: 2, max: 1e6,
				help: "A partition is compacted (and a table proposed) when it has at least this many small files."},
		},
	},
	JobManifests: {
		name: JobManifests, display: "Iceberg: rewrite manifests", detectEvery: 6 * 3600,
		description: "Merges the current snapshot's small manifests per partition spec, so planning a scan reads fewer files.",
		fields: []field{
			{name: "min_manifests", label: "Propose from this many manifests", kind: pluginpb.FieldType_FIELD_TYPE_INT, def: 10, min: 2, max: 1e6,
				help: "Detection proposes a table whose current snapshot has at least this many data manifests."},
			{name: "target_manifest_size_mb", label: "Target manifest size (MiB)", kind: pluginpb.FieldType_FIELD_TYPE_INT, def: 8, min: 1, max: 1024,
				help: "Size the merged manifests aim for."},
		},
	},
}

// capabilities are what Hello advertises.
func capabilities(detectSlots, executeSlots int) []*pluginpb.Capability {
	out := make([]*pluginpb.Capability, 0, len(JobTypes))
	for _, name := range JobTypes {
		jt := jobTypes[name]
		out = append(out, &pluginpb.Capability{JobType: name, Lane: lane, CanDetect: true, CanExecute: true,
			MaxDetectSlots: int32(detectSlots), MaxExecuteSlots: int32(executeSlots), DisplayName: jt.display, DescriptorVersion: descriptorVersion})
	}
	return out
}

// descriptor is the DescribeJobType answer for name (nil when unknown).
func descriptor(name string) *pluginpb.Descriptor {
	jt, ok := jobTypes[name]
	if !ok {
		return nil
	}
	sec := &pluginpb.FormSection{Name: "settings", Title: "Settings"}
	for _, f := range jt.fields {
		ff := &pluginpb.FormField{Name: f.name, Label: f.label, Help: f.help, Type: f.kind, DefaultValue: f.defaultText()}
		if f.kind == pluginpb.FieldType_FIELD_TYPE_BOOL {
			ff.Widget = "checkbox"
		} else {
			ff.Widget = "number"
			lo, hi := f.min, f.max
			ff.Min, ff.Max = &lo, &hi
		}
		sec.Fields = append(sec.Fields, ff)
	}
	return &pluginpb.Descriptor{JobType: name, DescriptorVersion: descriptorVersion, DisplayName: jt.display, Description: jt.description,
		Form: &pluginpb.Form{Sections: []*pluginpb.FormSection{sec}},
		Runtime: &pluginpb.RuntimeDefaults{Enabled: true, DetectionIntervalSeconds: jt.detectEvery, DetectionTimeoutSeconds: 300,
			ExecutionTimeoutSeconds: 3600, MaxJobsPerDetection: 100, GlobalConcurrency: 2, PerWorkerConcurrency: 1, Retries: 2, RetryBackoffSeconds: 60}}
}

func (f field) defaultText() string {
	if f.kind == pluginpb.FieldType_FIELD_TYPE_BOOL {
		return strconv.FormatBool(f.def != 0)
	}
	return strconv.FormatFloat(f.def, 'f', -1, 64)
}

// Settings are a job type's values, defaults filled in and ranges checked.
type Settings map[string]float64

// Int reads a whole-number setting.
func (s Settings) Int(name string) int64 { return int64(s[name]) }

// Bool reads a checkbox setting.
func (s Settings) Bool(name string) bool { return s[name] != 0 }

// SettingsError is a setting the worker cannot honour; it names the field.
type SettingsError struct {
	Field, Message string
}

func (e *SettingsError) Error() string { return e.Field + ": " + e.Message }

// readSettings merges the job type's defaults, the settings JSON and the
// job's parameters (strings, the latest word), and checks every range.
func readSettings(jobType, settingsJSON string, params map[string]string) (Settings, error) {
	jt, ok := jobTypes[jobType]
	if !ok {
		return nil, &SettingsError{Field: "job_type", Message: fmt.Sprintf("this worker does not offer %q", jobType)}
	}
	raw := map[string]any{}
	if settingsJSON != "" {
		if err := json.Unmarshal([]byte(settingsJSON), &raw); err != nil {
			return nil, &SettingsError{Field: "settings", Message: "the settings are not a JSON object: " + err.Error()}
		}
	}
	for k, v := range params {
		raw[k] = v
	}
	out := Settings{}
	for _, f := range jt.fields {
		v, ok := raw[f.name]
		if !ok || v == nil || v == "" {
			out[f.name] = f.def
			continue
		}
		n, err := f.parse(v)
		if err != nil {
			return nil, &SettingsError{Field: f.name, Message: err.Error()}
		}
		out[f.name] = n
	}
	return out, nil
}

func (f field) parse(v any) (float64, error) {
	if f.kind == pluginpb.FieldType_FIELD_TYPE_BOOL {
		switch b := v.(type) {
		case bool:
			return map[bool]float64{false: 0, true: 1}[b], nil
		case string:
			p, err := strconv.ParseBool(b)
			if err != nil {
				return 0, fmt.Errorf("%q is not true or false", b)
			}
			return map[bool]float64{false: 0, true: 1}[p], nil
		}
		return 0, fmt.Errorf("%v is not true or false", v)
	}
	var n float64
	switch x := v.(type) {
	case float64:
		n = x
	case string:
		p, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", x)
		}
		n = p
	default:
		return 0, fmt.Errorf("%v is not a number", v)
	}
	if math.IsNaN(n) || n != math.Trunc(n) {
		return 0, fmt.Errorf("%v is not a whole number", v)
	}
	if n < f.min || n > f.max {
		return 0, fmt.Errorf("%v is outside %v..%v", v, f.min, f.max)
	}
	return n, nil
}
