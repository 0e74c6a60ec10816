package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/floe/floe/plugin/pluginpb"

	"github.com/floe/floe/persist"
)

// Settings are one job type's stored settings: the worker form's values
// (validated, defaults filled) and the scheduler's runtime.
type Settings struct {
	JobType   string
	Values    map[string]string
	Runtime   Runtime
	UpdatedAt time.Time
	Stored    bool // false: nothing saved yet, these are the defaults
}

// JobTypeInfo describes a job type for the console.
type JobTypeInfo struct {
	JobType     string
	DisplayName string
	Description string
	Lane        string
	Descriptor  *Descriptor // nil until a worker described it
	Settings    Settings
	Workers     []string // connected workers advertising it
}

type jobTypeState struct {
	desc     *pluginpb.Descriptor
	settings Settings
	hasRow   bool
}

// jobTypes holds descriptors and settings, mirrored in SQLite.
type jobTypes struct {
	p  *Plugin
	mu sync.RWMutex
	m  map[string]*jobTypeState
}

func newJobTypes(p *Plugin) *jobTypes { return &jobTypes{p: p, m: make(map[string]*jobTypeState)} }

func (t *jobTypes) load(ctx context.Context) error {
	rows, err := t.p.db.QueryContext(ctx, `SELECT job_type, descriptor_json FROM plugin_job_types`)
	if err != nil {
		return fmt.Errorf("plugin: load job types: %w", err)
	}
	for rows.Next() {
		var jt, js string
		if err := rows.Scan(&jt, &js); err != nil {
			rows.Close()
			return err
		}
		d := new(pluginpb.Descriptor)
		if err := protojson.Unmarshal([]byte(js), d); err != nil {
			t.p.log.Warn("stored descriptor unreadable; it will be asked for again", "job_type", jt, "err", err)
			continue
		}
		t.m[jt] = &jobTypeState{desc: d}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = t.p.db.QueryContext(ctx, `SELECT job_type, values_json, runtime_json, updated_at FROM plugin_job_settings`)
	if err != nil {
		return fmt.Errorf("plugin: load settings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var jt, vj, rj string
		var at int64
		if err := rows.Scan(&jt, &vj, &rj, &at); err != nil {
			return err
		}
		st := t.m[jt]
		if st == nil {
			st = &jobTypeState{}
			t.m[jt] = st
		}
		var vals map[string]string
		_ = json.Unmarshal([]byte(vj), &vals)
		var r runtimeJSON
		_ = json.Unmarshal([]byte(rj), &r)
		st.settings = Settings{JobType: jt, Values: vals, Runtime: r.runtime(), UpdatedAt: persist.FromMicros(at), Stored: true}
		st.hasRow = true
	}
	return rows.Err()
}

// onHello asks the worker for descriptors it has not given yet (first sight
// of a job type, or a changed descriptor_version).
func (t *jobTypes) onHello(s *session) {
	for _, c := range s.caps {
		t.mu.RLock()
		st := t.m[c.GetJobType()]
		have := st != nil && st.desc != nil && st.desc.GetDescriptorVersion() == c.GetDescriptorVersion()
		t.mu.RUnlock()
		if have {
			continue
		}
		if err := t.describe(s, c.GetJobType()); err != nil {
			if s.alive() {
				t.p.log.Warn("could not get a job type's descriptor", "worker", s.workerID, "job_type", c.GetJobType(), "err", err)
			}
		}
	}
}

func (t *jobTypes) describe(s *session, jobType string) error {
	ctx, cancel := context.WithTimeout(s.ctx, t.p.cfg.DescribeTimeout)
	defer cancel()
	call, err := t.p.startCall(s, &pluginpb.ConsoleMessage{Body: &pluginpb.ConsoleMessage_DescribeJobType{
		DescribeJobType: &pluginpb.DescribeJobType{JobType: jobType}}})
	if err != nil {
		return err
	}
	defer call.Close()
	for {
		m, err := call.Next(ctx)
		if err != nil {
			return err
		}
		d := m.GetJobDescriptor()
		if d == nil {
			continue
		}
		call.Finish()
		if d.GetJobType() == "" {
			d.JobType = jobType
		}
		if d.GetJobType() != jobType {
			return fmt.Errorf("asked for %s, got a descriptor for %s", jobType, d.GetJobType())
		}
		return t.store(ctx, d)
	}
}

// store saves a descriptor and, the first time, the default settings.
func (t *jobTypes) store(ctx context.Context, d *pluginpb.Descriptor) error {
	js, err := protojson.Marshal(d)
	if err != nil {
		return err
	}
	now := t.p.now()
	if _, err := t.p.db.ExecContext(ctx, `INSERT INTO plugin_job_types(job_type, descriptor_version, descriptor_json, updated_at)
		VALUES (?, ?, ?, ?) ON CONFLICT(job_type) DO UPDATE SET descriptor_version = excluded.descriptor_version,
		descriptor_json = excluded.descriptor_json, updated_at = excluded.updated_at`,
		d.GetJobType(), d.GetDescriptorVersion(), string(js), persist.Micros(now)); err != nil {
		return fmt.Errorf("plugin: store descriptor: %w", err)
	}
	t.mu.Lock()
	st := t.m[d.GetJobType()]
	if st == nil {
		st = &jobTypeState{}
		t.m[d.GetJobType()] = st
	}
	st.desc = proto.Clone(d).(*pluginpb.Descriptor)
	needRow := !st.hasRow
	t.mu.Unlock()
	t.p.log.Info("job type described", "job_type", d.GetJobType(), "version", d.GetDescriptorVersion())
	if needRow {
		clean, _ := ValidateSettings(descriptorFromProto(d), nil)
		if _, err := t.save(ctx, d.GetJobType(), clean, runtimeFromProto(d.GetRuntime()), false); err != nil {
			return err
		}
	}
	t.p.events.publish(Event{Kind: EventJobType, JobType: d.GetJobType()})
	return nil
}

func (t *jobTypes) save(ctx context.Context, jobType string, values map[string]string, rt Runtime, overwrite bool) (Settings, error) {
	vj, _ := json.Marshal(values)
	rj, _ := json.Marshal(rt.toJSON())
	now := t.p.now()
	q := `INSERT INTO plugin_job_settings(job_type, values_json, runtime_json, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(job_type) DO NOTHING`
	if overwrite {
		q = `INSERT INTO plugin_job_settings(job_type, values_json, runtime_json, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(job_type) DO UPDATE SET values_json = excluded.values_json, runtime_json = excluded.runtime_json,
		updated_at = excluded.updated_at`
	}
	res, err := t.p.db.ExecContext(ctx, q, jobType, string(vj), string(rj), persist.Micros(now))
	if err != nil {
		return Settings{}, fmt.Errorf("plugin: save settings: %w", err)
	}
	st := Settings{JobType: jobType, Values: values, Runtime: rt, UpdatedAt: now, Stored: true}
	if n, _ := res.RowsAffected(); n == 0 && !overwrite {
		return t.settings(jobType), nil // another writer got there first; keep theirs
	}
	t.mu.Lock()
	s := t.m[jobType]
	if s == nil {
		s = &jobTypeState{}
		t.m[jobType] = s
	}
	s.settings = st
	s.hasRow = true
	t.mu.Unlock()
	return st, nil
}

// settings returns a job type's settings with descriptor defaults filling
// missing values.
func (t *jobTypes) settings(jobType string) Settings {
	t.mu.RLock()
	st := t.m[jobType]
	var (
		d   *pluginpb.Descriptor
		set Settings
	)
	if st != nil {
		d, set = st.desc, st.settings
	}
	t.mu.RUnlock()
	if !set.Stored {
		set = Settings{JobType: jobType, Runtime: runtimeFromProto(d.GetRuntime())}
	}
	if d != nil {
		set.Values = storedSettings(descriptorFromProto(d), set.Values)
	}
	return set
}

func (t *jobTypes) descriptor(jobType string) *pluginpb.Descriptor {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if st := t.m[jobType]; st != nil {
		return st.desc
	}
	return nil
}

func (t *jobTypes) names() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]string, 0, len(t.m))
	for k := range t.m {
		out = append(out, k)
	}
	return out
}

// Descriptor returns the stored descriptor of a job type.
func (p *Plugin) Descriptor(jobType string) (Descriptor, bool) {
	d := p.types.descriptor(jobType)
	if d == nil {
		return Descriptor{}, false
	}
	return descriptorFromProto(d), true
}

// Settings returns a job type's settings, defaults filled in.
func (p *Plugin) Settings(jobType string) (Settings, error) {
	if p.types.descriptor(jobType) == nil && !p.knownType(jobType) {
		return Settings{}, ErrUnknownJobType
	}
	return p.types.settings(jobType), nil
}

// SaveSettings validates and stores a job type's form values and runtime.
// fieldErrors (field name → sentence; runtime fields are named as in
// runtimeJSON) is non-empty when nothing was saved because input was wrong.
func (p *Plugin) SaveSettings(ctx context.Context, jobType string, values map[string]string, rt Runtime) (Settings, map[string]string, error) {
	d := p.types.descriptor(jobType)
	if d == nil {
		return Settings{}, nil, ErrUnknownJobType
	}
	clean, errs := ValidateSettings(descriptorFromProto(d), values)
	for k, v := range ValidateRuntime(rt) {
		if errs == nil {
			errs = map[string]string{}
		}
		errs[k] = v
	}
	if len(errs) > 0 {
		return Settings{}, errs, nil
	}
	st, err := p.types.save(ctx, jobType, clean, rt, true)
	if err != nil {
		return Settings{}, nil, err
	}
	p.sched.wakeAll()
	p.events.publish(Event{Kind: EventJobType, JobType: jobType})
	return st, nil, nil
}

// JobTypes lists every known job type (described or advertised), sorted.
func (p *Plugin) JobTypes() []JobTypeInfo {
	advertised := map[string][]string{}
	lanes := map[string]string{}
	names := map[string]string{}
	for _, w := range p.reg.snapshot(p.now()) {
		if w.Status == WorkerDisconnected {
			continue
		}
		for _, c := range w.Capabilities {
			advertised[c.JobType] = append(advertised[c.JobType], w.ID)
			lanes[c.JobType] = c.Lane
			if c.DisplayName != "" {
				names[c.JobType] = c.DisplayName
			}
		}
	}
	set := map[string]bool{}
	for _, n := range p.types.names() {
		set[n] = true
	}
	for n := range advertised {
		set[n] = true
	}
	out := make([]JobTypeInfo, 0, len(set))
	for n := range set {
		var desc *Descriptor
		if d, ok := p.Descriptor(n); ok {
			desc = &d
		}
		info := JobTypeInfo{JobType: n, Descriptor: desc, Settings: p.types.settings(n), Workers: advertised[n],
			Lane: p.laneFor(n), DisplayName: names[n]}
		if l, ok := lanes[n]; ok {
			info.Lane = l
		}
		if desc != nil {
			if desc.DisplayName != "" {
				info.DisplayName = desc.DisplayName
			}
			info.Description = desc.Description
		}
		if info.DisplayName == "" {
			info.DisplayName = n
		}
		sort.Strings(info.Workers)
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].JobType < out[j].JobType })
	return out
}

func (p *Plugin) knownType(jobType string) bool {
	for _, s := range p.reg.live(p.now()) {
		if _, ok := s.capability(jobType); ok {
			return true
		}
	}
	return false
}

// laneFor picks a job type's lane: from a connected worker's capability,
// else from its name's prefix (lance_…, iceberg_…), else default.
func (p *Plugin) laneFor(jobType string) string {
	p.reg.mu.RLock()
	for _, s := range p.reg.sessions {
		if c, ok := s.capability(jobType); ok {
			p.reg.mu.RUnlock()
			return laneOf(c.GetLane())
		}
	}
	p.reg.mu.RUnlock()
	switch {
	case len(jobType) > 6 && jobType[:6] == "lance_":
		return LaneLance
	case len(jobType) > 8 && jobType[:8] == "iceberg_":
		return LaneIceberg
	}
	return LaneDefault
}

// reload re-reads descriptors and settings another replica stored, keeping
// job types this replica knows that the database does not (yet) hold.
func (t *jobTypes) reload(ctx context.Context) error {
	fresh := newJobTypes(t.p)
	if err := fresh.load(ctx); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	maps.Copy(t.m, fresh.m)
	return nil
}
