package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	dto "github.com/prometheus/client_model/go"
)

// A small PromQL reader for the dashboard test: it finds what an
// expression names — metric selectors with their matcher labels, grouping
// labels, functions, the arguments of rate-like functions — so the test can
// hold every name against what a running floe exports. It is not a PromQL
// parser (Prometheus's own would bring a dependency graph that upgrades
// floe's production modules); it checks brackets balance, strings close,
// functions exist and Grafana variables sit only where Grafana replaces
// them with something PromQL accepts (strings and ranges).

// promRefs is what one expression names.
type promRefs struct {
	selectors []promSelector
	grouping  []string // by, without, on, ignoring, group_left, group_right
	counters  []string // metric names rate, irate and increase read
}

type promSelector struct {
	name   string
	labels []string // matcher label names
}

// Aggregations and functions floe's dashboard may use; a name outside
// these followed by "(" is a typo.
var (
	promAggregations = []string{"sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk",
		"quantile", "count_values", "group"}
	promFunctions = []string{"rate", "irate", "increase", "delta", "idelta", "deriv", "histogram_quantile",
		"abs", "ceil", "floor", "round", "clamp_min", "clamp_max", "absent", "vector", "scalar", "time",
		"avg_over_time", "max_over_time", "min_over_time", "sum_over_time", "count_over_time", "last_over_time",
		"label_replace", "sort", "sort_desc", "changes", "resets"}
	promGroupers  = []string{"by", "without", "on", "ignoring", "group_left", "group_right"}
	promKeywords  = []string{"bool", "offset", "and", "or", "unless", "atan2"}
	promCounterFn = []string{"rate", "irate", "increase"}
)

// scanPromQL reads expr (Grafana variables in place).
func scanPromQL(expr string) (promRefs, error) {
	var refs promRefs
	rs := []rune(expr)
	i, depth := 0, 0
	wantCounter := false
	skipSpace := func() {
		for i < len(rs) && unicode.IsSpace(rs[i]) {
			i++
		}
	}
	ident := func() string {
		start := i
		for i < len(rs) && (rs[i] == '_' || rs[i] == ':' || unicode.IsLetter(rs[i]) || (i > start && unicode.IsDigit(rs[i]))) {
			i++
		}
		return string(rs[start:i])
	}
	str := func() error {
		q := rs[i]
		for i++; i < len(rs); i++ {
			switch {
			case rs[i] == '\\' && q != '`':
				i++
			case rs[i] == q:
				i++
				return nil
			}
		}
		return fmt.Errorf("a string opened with %c is not closed", q)
	}
	for skipSpace(); i < len(rs); skipSpace() {
		c := rs[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			if err := str(); err != nil {
				return refs, err
			}
		case c == '[': // a range or subquery: durations and Grafana's $__rate_interval
			end := slices.Index(rs[i:], ']')
			if end < 0 {
				return refs, fmt.Errorf("a range opened at %d is not closed", i)
			}
			i += end + 1
		case c == '(':
			depth++
			i++
		case c == ')':
			if depth--; depth < 0 {
				return refs, fmt.Errorf("a ) at %d closes nothing", i)
			}
			i++
		case c == '{':
			return refs, fmt.Errorf("a selector at %d names no metric", i)
		case c == '$':
			return refs, fmt.Errorf("a Grafana variable at %d stands outside a string or range", i)
		case unicode.IsDigit(c) || c == '.':
			for i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]) || rs[i] == '.') {
				i++
			}
		case c == '_' || c == ':' || unicode.IsLetter(c):
			name := ident()
			skipSpace()
			next := rune(0)
			if i < len(rs) {
				next = rs[i]
			}
			switch {
			case slices.Contains(promGroupers, name):
				if next != '(' {
					if name == "group_left" || name == "group_right" {
						continue // no label list
					}
					return refs, fmt.Errorf("%s needs a label list", name)
				}
				end := slices.Index(rs[i:], ')')
				if end < 0 {
					return refs, fmt.Errorf("the label list of %s is not closed", name)
				}
				for l := range strings.SplitSeq(string(rs[i+1:i+end]), ",") {
					if l = strings.TrimSpace(l); l != "" {
						refs.grouping = append(refs.grouping, l)
					}
				}
				i += end + 1
			case slices.Contains(promAggregations, name):
				// followed by "(" or by a grouping clause
			case slices.Contains(promKeywords, name):
			case next == '(':
				if !slices.Contains(promFunctions, name) {
					return refs, fmt.Errorf("unknown function %s", name)
				}
				wantCounter = slices.Contains(promCounterFn, name)
			default:
				sel := promSelector{name: name}
				if wantCounter {
					refs.counters = append(refs.counters, name)
					wantCounter = false
				}
				if next == '{' {
					labels, n, err := scanMatchers(rs[i:])
					if err != nil {
						return refs, fmt.Errorf("%s: %w", name, err)
					}
					sel.labels, i = labels, i+n
				}
				refs.selectors = append(refs.selectors, sel)
			}
		case strings.ContainsRune("+-*/%^=!<>,:", c):
			i++
		default:
			return refs, fmt.Errorf("unexpected %q at %d", c, i)
		}
	}
	if depth != 0 {
		return refs, fmt.Errorf("%d ( left open", depth)
	}
	return refs, nil
}

// scanMatchers reads {label op "value", …} at the start of rs and returns
// the label names and the runes read.
func scanMatchers(rs []rune) ([]string, int, error) {
	var labels []string
	i := 1 // past {
	for {
		for i < len(rs) && (unicode.IsSpace(rs[i]) || rs[i] == ',') {
			i++
		}
		if i >= len(rs) {
			return nil, 0, fmt.Errorf("matchers not closed")
		}
		if rs[i] == '}' {
			return labels, i + 1, nil
		}
		start := i
		for i < len(rs) && (rs[i] == '_' || unicode.IsLetter(rs[i]) || (i > start && unicode.IsDigit(rs[i]))) {
			i++
		}
		if i == start {
			return nil, 0, fmt.Errorf("a matcher at %d has no label name", i)
		}
		labels = append(labels, string(rs[start:i]))
		for i < len(rs) && unicode.IsSpace(rs[i]) {
			i++
		}
		op := ""
		for i < len(rs) && strings.ContainsRune("=!~", rs[i]) {
			op += string(rs[i])
			i++
		}
		if !slices.Contains([]string{"=", "!=", "=~", "!~"}, op) {
			return nil, 0, fmt.Errorf("matcher %s has operator %q", labels[len(labels)-1], op)
		}
		for i < len(rs) && unicode.IsSpace(rs[i]) {
			i++
		}
		if i >= len(rs) || rs[i] != '"' {
			return nil, 0, fmt.Errorf("matcher %s has no quoted value", labels[len(labels)-1])
		}
		for i++; i < len(rs) && rs[i] != '"'; i++ {
			if rs[i] == '\\' {
				i++
			}
		}
		if i >= len(rs) {
			return nil, 0, fmt.Errorf("the value of matcher %s is not closed", labels[len(labels)-1])
		}
		i++
	}
}

// exportedSeries is what a scrape offers: each series name a query may
// select, its label names, and whether it only grows (what rate reads).
type exportedSeries map[string]struct {
	labels  map[string]bool
	counter bool
}

// scrapeLabels are added by Prometheus to every series it scrapes.
var scrapeLabels = []string{"instance", "job"}

// seriesOf lists the series names of the scraped families: a histogram's
// _bucket (with le), _sum and _count; a summary's quantiles, _sum, _count.
func seriesOf(mfs map[string]*dto.MetricFamily) exportedSeries {
	out := exportedSeries{}
	for name, mf := range mfs {
		ls := map[string]bool{}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				ls[l.GetName()] = true
			}
		}
		with := func(extra string) map[string]bool {
			c := map[string]bool{extra: true}
			for l := range ls {
				c[l] = true
			}
			return c
		}
		add := func(n string, labels map[string]bool, counter bool) {
			out[n] = struct {
				labels  map[string]bool
				counter bool
			}{labels, counter}
		}
		switch mf.GetType() {
		case dto.MetricType_HISTOGRAM:
			add(name+"_bucket", with("le"), true)
			add(name+"_sum", ls, true)
			add(name+"_count", ls, true)
		case dto.MetricType_SUMMARY:
			add(name, with("quantile"), false)
			add(name+"_sum", ls, true)
			add(name+"_count", ls, true)
		default:
			add(name, ls, mf.GetType() == dto.MetricType_COUNTER)
		}
	}
	return out
}

// checkExpr holds expr's names against what is exported and returns the
// labels its result can carry (for legends).
func checkExpr(expr string, have exportedSeries) (map[string]bool, error) {
	refs, err := scanPromQL(expr)
	if err != nil {
		return nil, err
	}
	if len(refs.selectors) == 0 {
		return nil, fmt.Errorf("selects no metric")
	}
	labels := map[string]bool{}
	for _, l := range scrapeLabels {
		labels[l] = true
	}
	var errs []string
	for _, s := range refs.selectors {
		ex, ok := have[s.name]
		if !ok {
			errs = append(errs, "a running floe exports no "+s.name)
			continue
		}
		for l := range ex.labels {
			labels[l] = true
		}
		for _, l := range s.labels {
			if !ex.labels[l] && !slices.Contains(scrapeLabels, l) {
				errs = append(errs, fmt.Sprintf("%s has no label %s", s.name, l))
			}
		}
	}
	for _, c := range refs.counters {
		if ex, ok := have[c]; ok && !ex.counter {
			errs = append(errs, fmt.Sprintf("rate-like function over %s, which is not a counter", c))
		}
	}
	for _, g := range refs.grouping {
		if !labels[g] {
			errs = append(errs, fmt.Sprintf("groups by %s, which none of its series carries", g))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return labels, nil
}

// TestCheckExpr: the reader accepts the shapes the dashboard uses and
// refuses each kind of mistake it exists to catch.
func TestCheckExpr(t *testing.T) {
	have := exportedSeries{
		"floe_http_requests_total":                  {labels: map[string]bool{"surface": true, "route": true, "status": true}, counter: true},
		"floe_http_request_duration_seconds_bucket": {labels: map[string]bool{"surface": true, "route": true, "le": true}, counter: true},
		"floe_jobs_pending":                         {labels: map[string]bool{"type": true}},
	}
	ok := []string{
		`sum by (surface) (rate(floe_http_requests_total{instance=~"$instance", surface=~"$surface"}[$__rate_interval]))`,
		`histogram_quantile(0.95, sum by (surface, le) (rate(floe_http_request_duration_seconds_bucket[5m])))`,
		`sum by (surface) (rate(floe_http_requests_total{status=~"5.."}[5m])) / sum by (surface) (rate(floe_http_requests_total[5m]))`,
		`60 * sum(floe_jobs_pending{type!="a,b}"})`,
		`topk(10, sum without (route) (floe_http_requests_total))`,
	}
	for _, e := range ok {
		if _, err := checkExpr(e, have); err != nil {
			t.Errorf("%s: %v", e, err)
		}
	}
	bad := map[string]string{
		`sum(rate(floe_http_request_total[5m]))`:                  "exports no floe_http_request_total",
		`sum(rate(floe_http_requests_total{surfce="lance"}[5m]))`: "no label surfce",
		`sum by (lane) (floe_jobs_pending)`:                       "groups by lane",
		`rate(floe_jobs_pending[5m])`:                             "not a counter",
		`histogram_quantil(0.9, floe_http_requests_total)`:        "unknown function",
		`sum(rate(floe_http_requests_total[5m])`:                  "left open",
		`floe_jobs_pending{type="x}`:                              "not closed",
		`floe_jobs_pending / $scale`:                              "outside a string or range",
		`{__name__="floe_jobs_pending"}`:                          "names no metric",
		`sum(floe_jobs_pending{type ~ "x"})`:                      "operator",
	}
	for e, want := range bad {
		_, err := checkExpr(e, have)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to say %q", e, err, want)
		}
	}
}
