package sinks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/floe/floe/audit"
)

// natsFlushTimeout bounds the wait for the server to confirm it has every
// message of a batch; past it the batch is sent again (at least once).
const natsFlushTimeout = 5 * time.Second

// DefaultSubject prefixes every event's subject: floe.audit.request,
// floe.table.committed, …; a subscriber takes all with "floe.>".
const DefaultSubject = "floe"

// NATS publishes each event on prefix.<type without its "floe.">.
type NATS struct {
	conn   *nats.Conn
	prefix string
	name   string
}

// NewNATS connects to url (nats://host:port; the client reconnects on its
// own, and a server that is down at start is retried in the background).
func NewNATS(raw, prefix string) (*NATS, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
		return nil, fmt.Errorf("--events-nats must be a nats:// URL with a host, e.g. nats://127.0.0.1:4222")
	}
	if prefix == "" {
		prefix = DefaultSubject
	}
	if strings.ContainsAny(prefix, " *>\t") || strings.HasPrefix(prefix, ".") || strings.HasSuffix(prefix, ".") {
		return nil, fmt.Errorf("--events-nats-subject %q is not a plain NATS subject (no spaces, wildcards or empty tokens)", prefix)
	}
	conn, err := nats.Connect(raw, nats.Name("floe"), nats.MaxReconnects(-1), nats.RetryOnFailedConnect(true))
	if err != nil {
		return nil, fmt.Errorf("events: connect to NATS: %w", err)
	}
	return &NATS{conn: conn, prefix: prefix, name: "nats:" + shortHash(raw+" "+prefix)}, nil
}

// Subject is the subject an event of type typ is published on.
func (n *NATS) Subject(typ string) string {
	return n.prefix + "." + strings.TrimPrefix(typ, "floe.")
}

// Name implements audit.Sink.
func (n *NATS) Name() string { return n.name }

// Send publishes the events and waits for the server to have them all.
func (n *NATS) Send(ctx context.Context, events []audit.CloudEvent) error {
	for _, ev := range events {
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		msg := nats.NewMsg(n.Subject(ev.Type))
		msg.Data = b
		msg.Header.Set("Content-Type", audit.ContentType)
		msg.Header.Set("ce-id", ev.ID) // what a receiver dedupes on, without parsing
		if err := n.conn.PublishMsg(msg); err != nil {
			return fmt.Errorf("nats: publish: %w", err)
		}
	}
	fctx, cancel := context.WithTimeout(ctx, natsFlushTimeout)
	defer cancel()
	if err := n.conn.FlushWithContext(fctx); err != nil {
		return fmt.Errorf("nats: flush: %w", err)
	}
	return nil
}

// Close implements audit.Sink.
func (n *NATS) Close() error {
	n.conn.Close()
	return nil
}
