// Package metricstest reads Prometheus series back in tests: one sample's
// value by family name and labels, from a registry or from a /metrics
// exposition parsed with expfmt.
package metricstest

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families gathers g, failing the test on an error.
func Families(t testing.TB, g prometheus.Gatherer) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("gather metrics: %v", err)
	}
	out := make(map[string]*dto.MetricFamily, len(mfs))
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// Parse reads a text exposition (what /metrics serves) into its families.
func Parse(r io.Reader) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(r)
}

// Value is the sample of family name whose labels include want: a
// counter's or gauge's value, a histogram's sample count. ok is false when
// no such sample exists.
func Value(mfs map[string]*dto.MetricFamily, name string, want map[string]string) (v float64, ok bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
	for _, m := range mf.GetMetric() {
		if !hasLabels(m, want) {
			continue
		}
		switch {
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue(), true
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue(), true
		case m.GetHistogram() != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		case m.GetUntyped() != nil:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

// Must is Value that fails the test when the sample is missing.
func Must(t testing.TB, mfs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	v, ok := Value(mfs, name, want)
	if !ok {
		t.Fatalf("no sample %s%s; the family has: %s", name, Labels(want), Samples(mfs[name]))
	}
	return v
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	have := map[string]string{}
	for _, l := range m.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// Labels renders a label set as PromQL does, sorted: {a="1",b="2"}.
func Labels(ls map[string]string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(ls)) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%q", k, ls[k])
	}
	b.WriteByte('}')
	return b.String()
}

// Samples lists a family's label sets, for failure messages.
func Samples(mf *dto.MetricFamily) string {
	if mf == nil {
		return "(no such family)"
	}
	var out []string
	for _, m := range mf.GetMetric() {
		ls := map[string]string{}
		for _, l := range m.GetLabel() {
			ls[l.GetName()] = l.GetValue()
		}
		out = append(out, Labels(ls))
	}
	return strings.Join(out, " ")
}
