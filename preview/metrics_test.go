package preview

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/metricstest"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// TestFetchMetrics: every Fetch is one round trip, labelled by format and
// by the reason it failed (never its text).
func TestFetchMetrics(t *testing.T) {
	e := newEnv(t)
	reg := prometheus.NewRegistry()
	if err := e.b.Instrument(reg); err != nil {
		t.Fatal(err)
	}
	ipc := allTypesIPC(t, 10)
	e.worker("w-ok", func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
		if p.GetObjectId() == "t-broken" {
			return nil, &pluginpb.PreviewDone{Error: "dataset not found"}
		}
		return plugintest.Split(ipc, 1<<10), &pluginpb.PreviewDone{TotalRows: 10, RowsSent: 10}
	})
	e.observed("t-ok", "w-ok")
	e.observed("t-broken", "w-ok")
	ctx := context.Background()
	if _, err := e.b.Fetch(ctx, Request{ObjectID: "t-ok", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.b.Fetch(ctx, Request{ObjectID: "t-broken", Format: catalog.FormatLance}); !errors.Is(err, ErrWorker) {
		t.Fatalf("broken table: %v", err)
	}
	if _, err := e.b.Fetch(ctx, Request{ObjectID: "t-unseen", Format: catalog.FormatIceberg}); !errors.Is(err, ErrNotObserved) {
		t.Fatalf("unseen iceberg table: %v", err)
	}
	mfs := metricstest.Families(t, reg)
	for _, c := range []struct{ format, outcome string }{{"lance", "ok"}, {"lance", "worker_error"}, {"iceberg", "not_observed"}} {
		ls := map[string]string{"format": c.format, "outcome": c.outcome}
		if got := metricstest.Must(t, mfs, "floe_preview_duration_seconds", ls); got != 1 {
			t.Errorf("previews%s = %v, want 1", metricstest.Labels(ls), got)
		}
	}
}

func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, "ok"},
		{fail(ErrNotObserved, "x"), "not_observed"},
		{fail(ErrWorkerGone, "x"), "worker_gone"},
		{fail(ErrWorker, "x"), "worker_error"},
		{fail(ErrTimeout, "x"), "timeout"},
		{fail(ErrTooLarge, "x"), "too_large"},
		{fail(ErrDecode, "x"), "decode_error"},
		{fail(ErrBadFilter, "x"), "bad_filter"},
		{context.Canceled, "canceled"},
		{errors.New("anything else"), "worker_error"},
	} {
		if got := outcome(c.err); got != c.want {
			t.Errorf("outcome(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
