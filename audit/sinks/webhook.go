// Package sinks delivers the audit trail's CloudEvents: to a webhook (HTTP
// POST, structured mode, one event per request) and to NATS (one message
// per event on a subject named for its type). audit.Publisher drives them
// from each sink's cursor, so a sink only sends and says whether it could.
package sinks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/floe/floe/audit"
)

// webhookTimeout bounds one POST: a receiver that hangs is given up on and
// retried later, and no request of floe's ever waits for it.
const webhookTimeout = 10 * time.Second

// maxReplyBytes is read of a receiver's answer (to reuse the connection);
// its content does not matter.
const maxReplyBytes = 4 << 10

// Webhook posts each event to a URL.
type Webhook struct {
	url    string
	name   string
	client *http.Client
}

// NewWebhook checks raw (http or https with a host) and builds the sink.
func NewWebhook(raw string) (*Webhook, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--events-webhook must be an http:// or https:// URL with a host, e.g. https://hooks.example.com/floe")
	}
	return &Webhook{url: raw, name: "webhook:" + shortHash(raw), client: &http.Client{Timeout: webhookTimeout}}, nil
}

// shortHash names a sink by its URL without showing it (it may carry a
// token in its query).
func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// Name implements audit.Sink.
func (w *Webhook) Name() string { return w.name }

// Send posts the events one by one, in order; a receiver's 2xx accepts one.
func (w *Webhook) Send(ctx context.Context, events []audit.CloudEvent) error {
	for _, ev := range events {
		if err := w.post(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

func (w *Webhook) post(ctx context.Context, ev audit.CloudEvent) error {
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", audit.ContentType)
	resp, err := w.client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook: %w", redactURL(err))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxReplyBytes))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook answered %d for event %s", resp.StatusCode, ev.ID)
	}
	return nil
}

// redactURL keeps a url.Error's operation and cause, not its URL.
func redactURL(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

// Close implements audit.Sink.
func (w *Webhook) Close() error {
	w.client.CloseIdleConnections()
	return nil
}
