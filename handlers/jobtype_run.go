package handlers

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/views"
)

// maxProposalsShown bounds the proposals listed after a detection: the
// count says how many there were; a page of ten thousand rows helps nobody.
const maxProposalsShown = 200

// DetectJobType is "Run detection now": a worker proposes jobs, nothing is
// queued. htmx gets the proposals as a fragment; a plain form the page.
func (h *Handlers) DetectJobType(w http.ResponseWriter, r *http.Request) {
	info, ok := h.jobTypeInfo(w, r)
	if !ok {
		return
	}
	res := views.DetectResult{JobType: info.JobType}
	d, err := h.plugin.DetectWhy(r.Context(), info.JobType)
	status := http.StatusOK
	if err != nil {
		status, res.Error = detectFailure(err)
		h.logError(r, status, err)
	} else {
		res.Total = len(d.Proposals)
		res.Proposals = h.proposalRows(r.Context(), d.Proposals)
		res.Skipped = h.proposalRows(r.Context(), d.Skipped)
	}
	h.renderDetect(w, r, info, status, res)
}

// RunJobType is "Run now": detect, then queue the proposals as jobs.
func (h *Handlers) RunJobType(w http.ResponseWriter, r *http.Request) {
	info, ok := h.jobTypeInfo(w, r)
	if !ok {
		return
	}
	res := views.DetectResult{JobType: info.JobType, RanNow: true}
	out, err := h.plugin.RunNow(r.Context(), info.JobType)
	status := http.StatusOK
	if err != nil {
		status, res.Error = detectFailure(err)
		h.logError(r, status, err)
	} else {
		res.Total, res.Created, res.Deduped, res.Capped = out.Proposals, len(out.Created), out.Deduped, out.Capped
		props := make([]plugin.Proposal, 0, len(out.Created))
		for _, j := range out.Created {
			props = append(props, plugin.Proposal{ObjectID: j.ObjectID, Parameters: j.Parameters, Summary: j.Summary})
		}
		res.Proposals = h.proposalRows(r.Context(), props) // the jobs queued
	}
	h.renderDetect(w, r, info, status, res)
}

func (h *Handlers) renderDetect(w http.ResponseWriter, r *http.Request, info plugin.JobTypeInfo, status int, res views.DetectResult) {
	if isHTMX(r) {
		h.render(w, r, status, views.DetectFragment(res))
		return
	}
	st, _ := h.plugin.Settings(info.JobType)
	v := h.jobTypeView(r, info, st)
	v.Result = &res
	h.render(w, r, status, views.JobTypePage(v))
}

// detectFailure: no worker is the operator's to fix (409); a worker that
// failed or timed out is a failed dependency (424). Both stay 4xx so htmx
// swaps the sentence in.
func detectFailure(err error) (int, string) {
	msg := err.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
		if !strings.HasSuffix(msg, ".") {
			msg += "."
		}
	}
	switch {
	case errors.Is(err, plugin.ErrNoWorker), errors.Is(err, plugin.ErrUnknownJobType), errors.Is(err, plugin.ErrClosed):
		return http.StatusConflict, msg
	}
	return http.StatusFailedDependency, msg
}

// proposalRows names each proposal's table, so people see bucket/ns/table
// rather than a UUID.
func (h *Handlers) proposalRows(ctx context.Context, props []plugin.Proposal) []views.ProposalRow {
	out := make([]views.ProposalRow, 0, min(len(props), maxProposalsShown))
	names := map[string]catalog.Table{}
	for _, p := range props {
		if len(out) == maxProposalsShown {
			break
		}
		row := views.ProposalRow{ObjectID: p.ObjectID, Summary: p.Summary, Parameters: formatParams(p.Parameters)}
		t, ok := names[p.ObjectID]
		if !ok && p.ObjectID != "" {
			if got, err := h.store.GetTableByID(ctx, p.ObjectID); err == nil {
				t, ok = got, true
				names[p.ObjectID] = got
			}
		}
		if ok {
			ns := catalog.JoinNamespace(t.Namespace)
			row.Table = t.Bucket + " / " + ns + " / " + t.Name
			row.TableHref = views.TableURL(t.Bucket, ns, t.Name)
		}
		out = append(out, row)
	}
	return out
}

func formatParams(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, " ")
}
