package sinks

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/floe/floe/audit"
)

// startNATS runs a real nats-server in process on 127.0.0.1 with a random
// port, stopped when the test ends.
func startNATS(t *testing.T) string {
	t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(ns.Shutdown)
	return ns.ClientURL()
}

func events(n int) []audit.CloudEvent {
	var out []audit.CloudEvent
	for i := range n {
		out = append(out, audit.Event(audit.Entry{ID: "ev-" + string(rune('a'+i)), Type: audit.TypeTableCommitted, Time: time.Now(),
			Bucket: "b", Namespace: "ns", Table: "t"}))
	}
	return out
}

func TestWebhookPostsStructuredCloudEvents(t *testing.T) {
	var mu sync.Mutex
	var got []audit.CloudEvent
	fail := 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/cloudevents+json") {
			t.Errorf("Content-Type %q", ct)
		}
		if fail > 0 {
			fail--
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var ev audit.CloudEvent
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Errorf("body %s: %v", b, err)
		}
		got = append(got, ev)
	}))
	defer srv.Close()
	w, err := NewWebhook(srv.URL + "/hook?token=secret")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.Name(), "secret") {
		t.Fatalf("the sink's name %q shows its URL", w.Name())
	}
	evs := events(3)
	if err := w.Send(context.Background(), evs); err == nil {
		t.Fatal("a 503 was taken as delivered")
	}
	if err := w.Send(context.Background(), evs); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0].ID != "ev-a" || got[2].ID != "ev-c" || got[0].SpecVersion != "1.0" || got[0].Subject != "b/ns/t" {
		t.Fatalf("received %+v", got)
	}
	for _, bad := range []string{"ftp://x", "http://", "not a url", ""} {
		if _, err := NewWebhook(bad); err == nil {
			t.Errorf("NewWebhook(%q) accepted", bad)
		}
	}
}

func TestWebhookThatHangsIsGivenUp(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	w, err := NewWebhook(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := w.Send(ctx, events(1)); err == nil {
		t.Fatal("a receiver that never answered was taken as delivered")
	}
}

func TestNATSPublishesEveryEvent(t *testing.T) {
	url := startNATS(t)
	sub, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	msgs := make(chan *nats.Msg, 16)
	if _, err := sub.ChanSubscribe("floe.>", msgs); err != nil {
		t.Fatal(err)
	}
	if err := sub.Flush(); err != nil {
		t.Fatal(err)
	}
	n, err := NewNATS(url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.Send(context.Background(), events(3)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		select {
		case m := <-msgs:
			var ev audit.CloudEvent
			if err := json.Unmarshal(m.Data, &ev); err != nil {
				t.Fatal(err)
			}
			if m.Subject != "floe.table.committed" || m.Header.Get("ce-id") != ev.ID || ev.Type != audit.TypeTableCommitted {
				t.Fatalf("message %d: subject %s, ce-id %s, event %+v", i, m.Subject, m.Header.Get("ce-id"), ev)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of 3 messages arrived", i)
		}
	}
	if _, err := NewNATS("http://x", ""); err == nil {
		t.Error("a non-nats URL was accepted")
	}
	if _, err := NewNATS(url, "floe.*"); err == nil {
		t.Error("a wildcard subject prefix was accepted")
	}
}
