package plugin

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The plugin's Prometheus series. Labels are job types, sources, lanes and
// outcomes, never object or job ids, so their number is bounded by what
// workers advertise (and by maxTypeLabels whatever they advertise).
//
// Counters and histograms are recorded where the state changes (job
// created, handed to a worker, finished; a detection answered); the gauges
// (jobs waiting and running, workers connected) are read from memory when
// Prometheus scrapes, so they cannot drift from what the console shows.

// maxTypeLabels bounds the distinct job types used as label values: a
// worker may advertise any names it likes, and each one is a handful of
// series; past the bound further types are counted as "other".
const maxTypeLabels = 64

// otherType labels the job types past maxTypeLabels.
const otherType = "other"

// Duration buckets, in seconds, each for what it measures.
var (
	// queueWaitBuckets: a job with a free worker leaves within a
	// scheduler tick (1s); one that waits for a slot waits for whole jobs.
	queueWaitBuckets = []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}
	// runBuckets: index builds and compactions run from seconds to hours.
	runBuckets = []float64{.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600}
	// detectionBuckets: a sweep reads every table of its format; 1,000
	// small tables take the Lance worker a few seconds.
	detectionBuckets = []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
)

// metrics holds the plugin's series; nil records nothing.
type metrics struct {
	created   *prometheus.CounterVec   // type, source
	finished  *prometheus.CounterVec   // type, outcome
	queueWait *prometheus.HistogramVec // type
	run       *prometheus.HistogramVec // type, outcome
	detection *prometheus.HistogramVec // type, outcome

	mu    sync.Mutex
	types map[string]bool // job types in use as label values
}

// newMetrics registers the plugin's series in reg; a nil reg gives nil
// (no metrics).
func newMetrics(reg prometheus.Registerer, p *Plugin) (*metrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &metrics{
		created: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floe_jobs_created_total",
			Help: "Jobs queued, by job type and source (detection, run-now, submitted).",
		}, []string{"type", "source"}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floe_jobs_finished_total",
			Help: "Jobs that ended, by job type and outcome (succeeded, failed, canceled, expired).",
		}, []string{"type", "outcome"}),
		queueWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "floe_job_queue_wait_seconds",
			Help:    "Time from a job (or its retry) being due to its attempt being sent to a worker, by job type.",
			Buckets: queueWaitBuckets,
		}, []string{"type"}),
		run: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "floe_job_run_seconds",
			Help:    "Time from a job's first attempt being sent to its end, retries included, by job type and outcome.",
			Buckets: runBuckets,
		}, []string{"type", "outcome"}),
		detection: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "floe_detection_duration_seconds",
			Help:    "Detection round trips with a worker (scheduled sweeps and Run now), by job type and outcome (ok, failed).",
			Buckets: detectionBuckets,
		}, []string{"type", "outcome"}),
		types: map[string]bool{},
	}
	cs := []prometheus.Collector{m.created, m.finished, m.queueWait, m.run, m.detection, &stateCollector{p: p, m: m}}
	for i, c := range cs {
		if err := reg.Register(c); err != nil {
			for _, done := range cs[:i] {
				reg.Unregister(done)
			}
			return nil, fmt.Errorf("plugin: register metrics: %w", err)
		}
	}
	return m, nil
}

// typeLabel is jobType as a label value: itself while fewer than
// maxTypeLabels types are in use, else otherType.
func (m *metrics) typeLabel(jobType string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.types[jobType] {
		return jobType
	}
	if len(m.types) >= maxTypeLabels {
		return otherType
	}
	m.types[jobType] = true
	return jobType
}

func (m *metrics) jobCreated(jobType, source string) {
	if m == nil {
		return
	}
	m.created.WithLabelValues(m.typeLabel(jobType), source).Inc()
}

// jobSent records an attempt handed to a worker after waiting since due.
func (m *metrics) jobSent(jobType string, wait time.Duration) {
	if m == nil {
		return
	}
	m.queueWait.WithLabelValues(m.typeLabel(jobType)).Observe(max(0, wait.Seconds()))
}

// jobFinished records a job that reached a terminal state.
func (m *metrics) jobFinished(j *Job) {
	if m == nil {
		return
	}
	t, outcome := m.typeLabel(j.Type), string(j.State)
	m.finished.WithLabelValues(t, outcome).Inc()
	if !j.StartedAt.IsZero() { // never sent (canceled while pending): it did not run
		m.run.WithLabelValues(t, outcome).Observe(max(0, j.FinishedAt.Sub(j.StartedAt).Seconds()))
	}
}

// detected records one detection round trip; err is its result.
func (m *metrics) detected(jobType string, d time.Duration, err error) {
	if m == nil || errors.Is(err, ErrNoWorker) { // no worker: no round trip
		return
	}
	outcome := "ok"
	if err != nil {
		outcome = "failed"
	}
	m.detection.WithLabelValues(m.typeLabel(jobType), outcome).Observe(d.Seconds())
}

// stateCollector reads the gauges from memory at scrape time.
type stateCollector struct {
	p *Plugin
	m *metrics
}

var (
	pendingDesc = prometheus.NewDesc("floe_jobs_pending",
		"Jobs waiting for a worker (or a retry's backoff) on this floe, by job type.", []string{"type"}, nil)
	runningDesc = prometheus.NewDesc("floe_jobs_running",
		"Jobs sent to a worker and not finished on this floe, by job type.", []string{"type"}, nil)
	workersDesc = prometheus.NewDesc("floe_workers_connected",
		"Workers connected to this floe and heartbeating, by lane; a worker serving several lanes counts in each.", []string{"lane"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- pendingDesc
	ch <- runningDesc
	ch <- workersDesc
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.p
	type counts struct{ pending, running int }
	byType := map[string]*counts{}
	count := func(jobType string) *counts {
		t := c.m.typeLabel(jobType)
		if byType[t] == nil {
			byType[t] = &counts{}
		}
		return byType[t]
	}
	// Described types, and types that had jobs, show 0 rather than
	// nothing, so a gauge that falls to zero is seen at zero.
	for _, t := range p.types.names() {
		count(t)
	}
	c.m.mu.Lock()
	for t := range c.m.types {
		if byType[t] == nil {
			byType[t] = &counts{}
		}
	}
	c.m.mu.Unlock()
	p.jobs.mu.Lock()
	for _, r := range p.jobs.active {
		if n := count(r.Type); r.State == JobPending {
			n.pending++
		} else {
			n.running++
		}
	}
	p.jobs.mu.Unlock()
	for t, n := range byType {
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(n.pending), t)
		ch <- prometheus.MustNewConstMetric(runningDesc, prometheus.GaugeValue, float64(n.running), t)
	}
	lanes := make(map[string]int, len(Lanes))
	for _, l := range Lanes {
		lanes[l] = 0
	}
	for _, s := range p.reg.live(p.now()) {
		seen := map[string]bool{}
		for _, cp := range s.caps { // set at Hello, never changed
			if l := laneOf(cp.GetLane()); !seen[l] {
				seen[l] = true
				lanes[l]++
			}
		}
	}
	for l, n := range lanes {
		ch <- prometheus.MustNewConstMetric(workersDesc, prometheus.GaugeValue, float64(n), l)
	}
}
