package observe

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/metricstest"
)

// TestIngestMetrics: every Put is counted once, by format and outcome.
func TestIngestMetrics(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	s, err := New(db, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reg := prometheus.NewRegistry()
	if err := s.Instrument(reg); err != nil {
		t.Fatal(err)
	}
	t0 := time.UnixMilli(1_700_000_000_000)
	for _, o := range []Observation{
		obs("t1", catalog.FormatLance, t0, `{"rows":10}`),
		obs("t1", catalog.FormatLance, t0.Add(time.Second), `{"rows":20}`),
		obs("t1", catalog.FormatLance, t0, `{"rows":5}`), // older than the one held
		obs("t1", catalog.FormatIceberg, t0, `{"rows":99}`),
		obs("t2", catalog.FormatIceberg, t0, `{"rows":`), // not JSON
		obs("t3", catalog.FormatLance, t0, `{"history":"`+strings.Repeat("x", maxAttributesBytes)+`"}`),
	} {
		_, _ = s.Put(o)
	}
	mfs := metricstest.Families(t, reg)
	for _, c := range []struct {
		format, outcome string
		want            float64
	}{
		{"lance", "stored", 2}, {"lance", "stale", 1}, {"lance", "refused", 1},
		{"iceberg", "stored", 1}, {"iceberg", "stale", 0}, {"iceberg", "refused", 1},
		{"other", "stored", 0},
	} {
		ls := map[string]string{"format": c.format, "outcome": c.outcome}
		if got := metricstest.Must(t, mfs, "floe_observations_ingested_total", ls); got != c.want {
			t.Errorf("ingested%s = %v, want %v", metricstest.Labels(ls), got, c.want)
		}
	}
	if err := s.Instrument(reg); err == nil {
		t.Error("a second Instrument on the same registry succeeded")
	}
}
