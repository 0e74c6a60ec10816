package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/floe/floe/audit"
	"github.com/floe/floe/audit/sinks"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
)

// auditConfig is what `floe serve` reads about the audit trail and events.
type auditConfig struct {
	Retention   retention
	Reads       bool
	Webhook     string
	NATS        string
	NATSSubject string
}

func (c *auditConfig) addFlags(f *pflag.FlagSet) {
	c.Retention = retention(audit.DefaultRetention)
	f.Var(&c.Retention, "audit-retention", `how long the audit trail keeps entries, e.g. 90d, 36h ("0" keeps them forever)`)
	f.BoolVar(&c.Reads, "audit-reads", false, "record successful reads in the audit trail too (writes and refusals always are)")
	f.StringVar(&c.Webhook, "events-webhook", "", "POST every audit entry and catalog change as a CloudEvent (JSON) to this URL; retried until it answers 2xx")
	f.StringVar(&c.NATS, "events-nats", "", "also publish every event to this NATS server, e.g. nats://127.0.0.1:4222")
	f.StringVar(&c.NATSSubject, "events-nats-subject", sinks.DefaultSubject, "subject prefix of the NATS events (floe.audit.request, floe.table.committed, …)")
}

// retention is a duration flag that also takes days ("90d").
type retention time.Duration

func (r *retention) String() string {
	d := time.Duration(*r)
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

func (r *retention) Set(s string) error {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseUint(n, 10, 16)
		if err != nil {
			return fmt.Errorf("%q: give days as a whole number (90d) or a duration (36h)", s)
		}
		*r = retention(time.Duration(days) * 24 * time.Hour)
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("%q: give days (90d), a duration (36h), or 0 to keep entries forever", s)
	}
	*r = retention(d)
	return nil
}

func (r *retention) Type() string { return "duration" }

// tableEntry is a catalog change as an entry of the trail.
func tableEntry(e catalog.TableEvent) audit.Entry {
	typ := audit.TypeTableCreated
	switch e.Kind {
	case catalog.TableCommitted:
		typ = audit.TypeTableCommitted
	case catalog.TableDropped:
		typ = audit.TypeTableDropped
	}
	d := map[string]any{"table_id": e.Table.ID, "format": e.Table.Format, "location": e.Table.Location}
	if e.Table.MetadataLocation != "" && e.Kind != catalog.TableDropped {
		d["metadata_location"] = e.Table.MetadataLocation
	}
	if e.Version != 0 {
		d["version"] = e.Version
	}
	if e.Kind == catalog.TableDropped {
		d["data_deleted"] = e.DataDeleted
		d["deregistered"] = e.Deregistered
		if e.Held { // recently deleted: undroppable until purge_at
			d["held"] = true
			d["purge_at"] = e.PurgeAt.UTC().Format(time.RFC3339)
		}
		if e.Purged { // a recently deleted table's hold ended, or Purge now
			d["purged"] = true
		}
	}
	data, _ := json.Marshal(d)
	return audit.Entry{Type: typ, Time: time.Now(), Principal: "-", Bucket: e.Table.Bucket,
		Namespace: strings.Join(e.Table.Namespace, "."), Table: e.Table.Name, Data: string(data)}
}

// jobEntry is a finished job as an entry of the trail; its table is looked
// up by id (a job on a table since dropped names only the id).
func jobEntry(ctx context.Context, st *catalog.Store, j plugin.Job) audit.Entry {
	d := map[string]any{"job_id": j.ID, "job_type": j.Type, "state": j.State, "table_id": j.ObjectID, "source": j.Source,
		"attempts": j.Attempts}
	if j.Error != "" {
		d["error"] = j.Error
	}
	if j.ResultSummary != "" {
		d["summary"] = j.ResultSummary
	}
	data, _ := json.Marshal(d)
	e := audit.Entry{Type: audit.TypeJobFinished, Time: j.FinishedAt, Principal: "-", Data: string(data)}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if j.ObjectID != "" && st != nil {
		if t, err := st.GetTableByID(ctx, j.ObjectID); err == nil {
			e.Bucket, e.Namespace, e.Table = t.Bucket, strings.Join(t.Namespace, "."), t.Name
		}
	}
	if j.State != plugin.JobSucceeded {
		e.Fault = string(j.State)
	}
	return e
}

// followJobs adds an entry for every job that finishes on this replica
// (a remote one is recorded by the replica where it ran) until ctx ends.
func followJobs(ctx context.Context, p *plugin.Plugin, st *catalog.Store, trail *audit.Trail) {
	events, stop := p.Subscribe()
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Kind != plugin.EventJob || ev.Remote || ev.Job.State.Active() {
				continue
			}
			trail.Add(jobEntry(ctx, st, ev.Job))
		}
	}
}

// eventParts are the audit trail and its event publishers, built by
// startServer and run by Run.
type eventParts struct {
	trail      *audit.Trail
	publishers []*audit.Publisher
}

// newEventParts builds the trail and a publisher per configured sink, and
// makes each sink's cursor (Load) before anything serves.
func newEventParts(ctx context.Context, s *server) (*eventParts, error) {
	db, closeDB, err := openAuditDB(ctx, s.paths, s.db)
	if err != nil {
		return nil, err
	}
	s.register("audit database", closeDB) // closed after the trail and publishers, which Run ends first
	store := audit.NewStore(db)
	ep := &eventParts{trail: audit.New(audit.Config{Store: store, Log: s.log, Retention: time.Duration(s.cfg.Audit.Retention),
		Metrics: s.metrics.reg})}
	var list []audit.Sink
	if s.cfg.Audit.Webhook != "" {
		w, err := sinks.NewWebhook(s.cfg.Audit.Webhook)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		list = append(list, w)
	}
	if s.cfg.Audit.NATS != "" {
		n, err := sinks.NewNATS(s.cfg.Audit.NATS, s.cfg.Audit.NATSSubject)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		s.register("nats events", n.Close)
		list = append(list, n)
	}
	for _, sk := range list {
		p := audit.NewPublisher(store, sk, ep.trail.Stored(), s.log)
		if err := p.Load(ctx); err != nil {
			return nil, err
		}
		ep.publishers = append(ep.publishers, p)
	}
	s.st.OnTableEvent(func(e catalog.TableEvent) { ep.trail.Add(tableEntry(e)) })
	return ep, nil
}

// runParts are the trail's parts for Run's errgroup.
func (ep *eventParts) runParts(s *server) []namedPart {
	parts := []namedPart{
		{"audit trail", ep.trail.Run},
		{"job events", func(ctx context.Context) error { followJobs(ctx, s.svc.plugin, s.st, ep.trail); return nil }},
	}
	for _, p := range ep.publishers {
		parts = append(parts, namedPart{"event delivery", p.Run})
	}
	return parts
}

// namedPart is one long-running part of the server.
type namedPart struct {
	name string
	run  func(context.Context) error
}
