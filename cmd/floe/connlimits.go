package main

import (
	"fmt"
	"time"

	"github.com/floe/floe/connlimit"
)

// The connection limits of one floe serve (#23 item 2): every listener
// gets a share of a budget below the open-file limit, plus a reserve any
// of them may borrow, so that a flood on one surface cannot exhaust file
// descriptors or starve the other surfaces. See the connlimit package for
// how a full listener admits connections.
const (
	// metricsShare: Prometheus scrapers, a handful at most.
	metricsShare = 8
	// grpcShareMin and grpcShareMax bound the plugin channel's share, a
	// sixteenth of the budget: workers hold one connection each, and
	// nothing but workers has a reason to be there.
	grpcShareMin = 16
	grpcShareMax = 1024
	// grpcIdleMax caps the plugin channel's connections without an
	// authenticated worker stream (a quarter of its share, at most this):
	// a worker authenticates on its first stream within milliseconds, so
	// only floods and stragglers are ever counted here.
	grpcIdleMax = 64
	// grpcUnauthenticatedTimeout closes a plugin-channel connection that
	// has not opened an authenticated worker stream this long after it
	// connected (or after its last stream ended): the handshake and the
	// first stream take milliseconds, and a worker whose stream ended
	// redials.
	grpcUnauthenticatedTimeout = 10 * time.Second
	// connNoLimit is --max-connections' value for no limit.
	connNoLimit = -1
)

// connPlan is how the budget is split: a share per listener (by its name
// in bindAll: http, lance, iceberg, s3tables, grpc, metrics) and the
// reserve. off means no limit (--max-connections -1): the HTTP listeners
// are served as they are and the plugin channel keeps only its rules for
// connections without a worker stream.
type connPlan struct {
	fileLimit int
	total     int
	reserve   int
	shares    map[string]int
	off       bool
}

// planConnections splits the budget for the listeners bound: flag is
// --max-connections (0: as many as the open-file limit allows).
func planConnections(flag int, names []string) (connPlan, error) {
	limit, err := connlimit.FileLimit()
	if err != nil {
		return connPlan{}, fmt.Errorf("reading the open-file limit: %w", err)
	}
	p := connPlan{fileLimit: limit, shares: map[string]int{}}
	if flag == connNoLimit {
		p.off = true
		for _, n := range names {
			p.shares[n] = 1 << 30
		}
		return p, nil
	}
	if flag < connNoLimit {
		return connPlan{}, usageError{fmt.Sprintf("--max-connections %d: give a number of connections, 0 for as many as the open-file limit allows, or -1 for no limit", flag)}
	}
	allowed, err := connlimit.Total(limit)
	if err != nil {
		return connPlan{}, err
	}
	p.total = allowed
	if flag > 0 {
		if flag > allowed {
			return connPlan{}, usageError{fmt.Sprintf("--max-connections %d is more than the open-file limit (%d) leaves for connections (%d); raise the limit (ulimit -n) or ask for fewer", flag, limit, allowed)}
		}
		if flag < connlimit.MinTotal {
			return connPlan{}, usageError{fmt.Sprintf("--max-connections %d is too few to serve every surface; give at least %d", flag, connlimit.MinTotal)}
		}
		p.total = flag
	}
	rest, equal := p.total, 0
	for _, n := range names {
		switch n {
		case "metrics":
			p.shares[n] = metricsShare
		case "grpc":
			p.shares[n] = min(max(p.total/16, grpcShareMin), grpcShareMax)
		default:
			equal++
			continue
		}
		rest -= p.shares[n]
	}
	// The HTTP surfaces share the rest equally with the reserve.
	share := rest / (equal + 1)
	for _, n := range names {
		if _, fixed := p.shares[n]; !fixed {
			p.shares[n] = share
		}
	}
	p.reserve = rest - share*equal
	return p, nil
}

// limitListeners wraps every bound listener in its share of the budget.
func (s *server) limitListeners() error {
	names := make([]string, 0, len(s.https)+1)
	for _, h := range s.https {
		names = append(names, h.name)
	}
	if s.grpcLn != nil {
		names = append(names, "grpc")
	}
	plan, err := planConnections(s.cfg.MaxConnections, names)
	if err != nil {
		return err
	}
	s.conns = plan
	budget := connlimit.NewBudget(plan.reserve)
	for i := range s.https {
		h := &s.https[i]
		if plan.off {
			continue
		}
		name := surfaceLabel(h.name)
		s.metrics.conns.Init(name)
		h.limit = budget.Listen(h.ln, connlimit.Options{Name: name, Share: plan.shares[h.name],
			Refuse: connlimit.HTTPRefusal(name), Log: s.log, Metrics: s.metrics.conns})
		h.ln = h.limit
	}
	if s.grpcLn != nil {
		share := plan.shares["grpc"]
		s.metrics.conns.Init("grpc")
		s.grpcLn = budget.Listen(s.grpcLn, connlimit.Options{Name: "grpc", Share: share,
			MaxIdle: min(max(share/4, 4), grpcIdleMax), IdleDeadline: grpcUnauthenticatedTimeout,
			Log: s.log, Metrics: s.metrics.conns})
	}
	s.logConnPlan()
	return nil
}

// surfaceLabel names a listener as the edge's metrics name its surface.
func surfaceLabel(listener string) string {
	if listener == "http" {
		return "console"
	}
	return listener
}

func (s *server) logConnPlan() {
	p := s.conns
	if p.off {
		s.log.Warn("connection limits are off (--max-connections -1): a flood of connections can exhaust the open-file limit",
			"open_file_limit", p.fileLimit)
		return
	}
	attrs := []any{"open_file_limit", p.fileLimit, "connections", p.total, "reserve", p.reserve}
	for _, h := range s.https {
		attrs = append(attrs, surfaceLabel(h.name), p.shares[h.name])
	}
	if s.grpcLn != nil {
		attrs = append(attrs, "grpc", p.shares["grpc"])
	}
	s.log.Info("connection limits", attrs...)
}

// liveLimit is how many /live websockets the console may hold at once:
// half its share (the console keeps its own lower cap when that is less),
// so live pages never fill the console's connections and pages still load;
// 0 leaves the console's own cap.
func (p connPlan) liveLimit() int {
	if p.off {
		return 0
	}
	return max(p.shares["http"]/2, 1)
}
