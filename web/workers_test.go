package web

import (
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

func TestWorkersPage(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	c := e.admin()

	t.Run("empty state says how to start one", func(t *testing.T) {
		r := e.get(c, "/workers")
		if r.status != http.StatusOK || !r.has("workers-empty") {
			t.Fatalf("status %d, empty state missing: %s", r.status, r.body)
		}
		for _, want := range []string{"make run", "floe worker-token create", "FLOE_WORKER_TOKEN=… npm run worker"} {
			if !strings.Contains(r.text("workers-empty"), want) {
				t.Errorf("empty state lacks %q", want)
			}
		}
	})

	w := e.worker(plugintest.Config{WorkerID: "w-lance", Version: "0.3.1", PreviewFormats: []string{"LANCE"},
		Capabilities: []*pluginpb.Capability{{JobType: "lance_compact", Lane: "lance", CanDetect: true, CanExecute: true, DisplayName: "Compact"}}})
	w.Heartbeat(1, 4)
	e.waitFor("slots reported", func() bool { wi, _ := e.p.Worker("w-lance"); return wi.SlotsTotal == 4 })

	t.Run("lists a connected worker", func(t *testing.T) {
		r := e.get(c, "/workers")
		row := r.doc.Find(`[data-testid="worker-row"][data-worker="w-lance"]`)
		if row.Length() != 1 {
			t.Fatalf("worker row missing: %s", r.body)
		}
		if got := strings.TrimSpace(row.Find(`[data-testid="worker-state"]`).Text()); got != "connected" {
			t.Errorf("state %q", got)
		}
		if got := strings.TrimSpace(row.Find(`[data-testid="worker-slots"]`).Text()); got != "1/4" {
			t.Errorf("slots %q", got)
		}
		if !strings.Contains(row.Text(), "0.3.1") || row.Find(`a[href="/job-types/lance_compact"]`).Length() != 1 {
			t.Errorf("version or job type link missing: %s", row.Text())
		}
		if !strings.Contains(row.Find(`[data-testid="worker-last-seen"]`).Text(), "ago") {
			t.Errorf("last heartbeat not relative: %q", row.Find(`[data-testid="worker-last-seen"]`).Text())
		}
		if r.doc.Find(`[data-testid="job-type-row"][data-job-type="lance_compact"]`).Length() != 1 {
			t.Errorf("job type not listed")
		}
	})

	t.Run("a worker that went away stays listed as disconnected", func(t *testing.T) {
		w.Close()
		e.waitFor("worker gone", func() bool { wi, _ := e.p.Worker("w-lance"); return wi.Status == plugin.WorkerDisconnected })
		r := e.get(c, "/workers")
		row := r.doc.Find(`[data-testid="worker-row"][data-worker="w-lance"]`)
		if got := strings.TrimSpace(row.Find(`[data-testid="worker-state"]`).Text()); got != "disconnected" {
			t.Errorf("state %q, want disconnected", got)
		}
		if r.has("workers-empty") {
			t.Errorf("empty state shown while a disconnected worker is listed")
		}
	})
}

func TestWorkerTokens(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{HeartbeatTimeout: time.Minute})
	c := e.admin()

	r := e.post(c, "/workers/tokens", url.Values{"name": {""}})
	if r.status != http.StatusUnprocessableEntity || !r.has("error-name") {
		t.Fatalf("empty name: status %d, error-name %v", r.status, r.has("error-name"))
	}

	r = e.post(c, "/workers/tokens", url.Values{"name": {"build-host"}})
	if r.status != http.StatusSeeOther || strings.Contains(r.body, "floew_") {
		t.Fatalf("create: status %d: %s", r.status, r.body)
	}
	r = e.get(c, "/workers")
	secret := r.text("new-worker-token-secret")
	if !strings.HasPrefix(secret, "floew_") || !r.has("copy-worker-token") {
		t.Fatalf("secret %q or copy button missing", secret)
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", r.header.Get("Cache-Control"))
	}
	if _, err := e.store.VerifyWorkerToken(t.Context(), secret); err != nil {
		t.Fatalf("shown secret does not verify: %v", err)
	}
	again := e.get(c, "/workers")
	if strings.Contains(again.body, secret) {
		t.Fatal("secret shown a second time")
	}
	row := again.doc.Find(`[data-testid="worker-token-row"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), "build-host")
	})
	id, _ := row.Attr("data-token")
	if id == "" {
		t.Fatalf("token not listed: %s", again.body)
	}

	t.Run("readonly sees no tokens and cannot create", func(t *testing.T) {
		rc := e.reader()
		if e.get(rc, "/workers").has("worker-tokens") {
			t.Error("readonly user sees the worker tokens section")
		}
		if r := e.post(rc, "/workers/tokens", url.Values{"name": {"x"}}); r.status != http.StatusForbidden {
			t.Errorf("readonly create: status %d", r.status)
		}
	})

	r = e.post(c, "/workers/tokens/"+id+"/revoke", url.Values{})
	if r.status != http.StatusSeeOther {
		t.Fatalf("revoke: status %d", r.status)
	}
	if _, err := e.store.VerifyWorkerToken(t.Context(), secret); err == nil {
		t.Fatal("revoked token still verifies")
	}
	if got := e.get(c, "/workers").text("flash"); !strings.HasPrefix(got, "Worker token build-host revoked") {
		t.Fatalf("revoke flash %q", got)
	}
	toks, err := e.store.ListWorkerTokens(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		if tok.Name == "build-host" {
			t.Fatal("the revoked token is still listed")
		}
	}
}

// A worker silent past the heartbeat timeout shows as stale.
func TestWorkersPageStale(t *testing.T) {
	var skew atomic.Int64 // nanoseconds the console's clock runs ahead
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	e := newWorkerEnv(t, plugin.Options{HeartbeatTimeout: time.Minute, Now: now})
	e.worker(plugintest.Config{WorkerID: "w-quiet"})
	skew.Store(int64(90 * time.Second)) // past one timeout, short of the three that disconnect
	r := e.get(e.admin(), "/workers")
	row := r.doc.Find(`[data-testid="worker-row"][data-worker="w-quiet"]`)
	if got := strings.TrimSpace(row.Find(`[data-testid="worker-state"]`).Text()); got != "stale" {
		t.Errorf("state %q, want stale", got)
	}
}
