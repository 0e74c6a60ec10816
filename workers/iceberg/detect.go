package iceworker

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/floe/floe/plugin/pluginpb"
)

const (
	// sweepConcurrency is how many tables one detection reads at once: the
	// reads are small catalog calls and manifest reads, so a few in flight
	// hide latency without crowding the catalog.
	sweepConcurrency = 8
	// detectBatch is how many observations or proposals go in one message.
	detectBatch = 50
)

// DetectOut receives a detection's messages as they are ready.
type DetectOut struct {
	Proposals    func([]*pluginpb.Proposal)
	Observations func([]*pluginpb.Observation)
}

// Detect sweeps every Iceberg table the key may see: it observes each and
// proposes those past the job type's thresholds. The error is for
// DetectionDone ("" when the sweep finished).
//
// memo (nil for none) carries what earlier sweeps read, so a table whose
// metadata did not change costs one listing at most.
func Detect(ctx context.Context, log *slog.Logger, req *pluginpb.Detect, cats *catalogs, files Files, memo *sweepMemo, out DetectOut) string {
	jt := req.GetJobType()
	s, err := readSettings(jt, req.GetSettingsJson(), nil)
	if err != nil {
		return err.Error()
	}
	cat, err := cats.get(req.GetCluster().GetIcebergRestUrl(), req.GetCluster().GetApiKey())
	if err != nil {
		return err.Error()
	}
	refs, err := cat.ListTables(ctx)
	if err != nil {
		return err.Error()
	}
	refs = targeted(refs, req.GetObjects())
	observeOnly := req.GetObserveOnly()
	th := thresholdsFrom(jt, s)
	nested := nestedIndex(refs)
	maxProps := int(req.GetMaxProposals())
	var deadline time.Time
	if ms := req.GetDeadlineUnixMs(); ms > 0 {
		deadline = time.UnixMilli(ms)
	}

	var mu sync.Mutex
	var obs []*pluginpb.Observation
	var props []*pluginpb.Proposal
	proposed, skipped, late := 0, 0, false
	flush := func(force bool) { // under mu
		if len(obs) > 0 && (force || len(obs) >= detectBatch) {
			out.Observations(obs)
			obs = nil
		}
		if len(props) > 0 && (force || len(props) >= detectBatch) {
			out.Proposals(props)
			props = nil
		}
	}
	work := make(chan TableRef)
	var wg sync.WaitGroup
	for range sweepConcurrency {
		wg.Go(func() {
			for ref := range work {
				j := &Job{Type: jt, Ref: ref, Settings: s, Catalog: cat, Files: files, Now: time.Now, nested: nested[ref.ID], nestedKnown: true}
				var tbl *table.Table
				var err error
				// Metadata files never change, so a remembered table needs no
				// read; but one on S3 comes with the REST answer's credentials,
				// which may be vended and expire, so it is loaded afresh.
				_, onS3 := s3Location(ref.MetadataLocation)
				if e := memo.get(ref.ID, ref.MetadataLocation); e != nil && !onS3 {
					tbl = e.tbl
				} else {
					tbl, err = cat.Snapshot(ctx, ref)
				}
				var f Figures
				if err == nil {
					f, err = j.observeMemo(ctx, tbl, th, memo)
				}
				if err != nil {
					log.Warn("detect: skipping table", "job_type", jt, "table", ref.Ident(), "reason", err)
					mu.Lock()
					skipped++
					// Say why on the table's Maintenance tab: a table the
					// worker cannot read is never maintained, and only the
					// log said so.
					if ctx.Err() == nil {
						attrs, _ := json.Marshal(Figures{Unreadable: skipReason(err)})
						obs = append(obs, &pluginpb.Observation{ObjectId: ref.ID, Format: "ICEBERG", ObservedAtUnixMs: time.Now().UnixMilli(), AttributesJson: string(attrs)})
						flush(false)
					}
					mu.Unlock()
					continue
				}
				attrs, _ := json.Marshal(f)
				v := decide(jt, s, f)
				mu.Lock()
				obs = append(obs, &pluginpb.Observation{ObjectId: ref.ID, Format: "ICEBERG", ObservedAtUnixMs: time.Now().UnixMilli(), AttributesJson: string(attrs)})
				decision := "skip"
				if observeOnly {
					decision = "observe only"
				} else if v.propose && (maxProps <= 0 || proposed < maxProps) {
					proposed++
					decision = "propose"
					props = append(props, &pluginpb.Proposal{ObjectId: ref.ID, DedupeKey: jt + ":" + ref.ID, Summary: v.summary})
				}
				flush(false)
				mu.Unlock()
				log.Debug("detect", "job_type", jt, "table", ref.Ident(), "decision", decision, "why", v.summary)
			}
		})
	}
feed:
	for _, ref := range refs {
		if !deadline.IsZero() && time.Now().After(deadline) {
			late = true
			break
		}
		select {
		case work <- ref:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if !late && ctx.Err() == nil {
		ids := make(map[string]bool, len(refs))
		for _, r := range refs {
			ids[r.ID] = true
		}
		memo.keepOnly(ids)
	}
	mu.Lock()
	flush(true)
	mu.Unlock()
	log.Info("detect: sweep done", "job_type", jt, "tables", len(refs), "skipped", skipped, "proposed", proposed)
	switch {
	case ctx.Err() != nil:
		return "canceled"
	case late:
		return fmt.Sprintf("deadline reached before every table was read (%d proposals so far)", proposed)
	}
	return ""
}

// maxSkipReasonBytes bounds the reason an observation carries: enough for
// the error chain, not a dump of the metadata it could not parse.
const maxSkipReasonBytes = 1024

// skipReason is the sentence the Maintenance tab shows for a skipped table.
func skipReason(err error) string {
	s := err.Error()
	if len(s) > maxSkipReasonBytes {
		s = strings.ToValidUTF8(s[:maxSkipReasonBytes], "") + "…"
	}
	return s
}

// targeted keeps the tables a targeted observe names (all of them when it
// names none): the console asks for fresh figures of tables it saw change.
func targeted(refs []TableRef, objects []*pluginpb.ObjectRef) []TableRef {
	if len(objects) == 0 {
		return refs
	}
	want := make(map[string]bool, len(objects))
	for _, o := range objects {
		want[refKey(o.GetBucket(), o.GetNamespace(), o.GetName())] = true
	}
	out := refs[:0:0]
	for _, r := range refs {
		if want[refKey(r.Bucket, r.Namespace, r.Name)] {
			out = append(out, r)
		}
	}
	return out
}

func refKey(bucket string, ns []string, name string) string {
	return bucket + "\x00" + strings.Join(ns, "\x1f") + "\x00" + name
}
