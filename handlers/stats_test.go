package handlers

import (
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

type rowsMap map[string]int64

func (m rowsMap) Rows(id string, f catalog.Format) (int64, time.Time, string, bool) {
	n, ok := m[id+"/"+string(f)]
	return n, time.Unix(1, 0), "w1", ok
}

func TestStatsFromRows(t *testing.T) {
	s := StatsFromRows(rowsMap{"a/LANCE": 0, "b/LANCE": 42})
	tests := []struct {
		id   string
		f    catalog.Format
		rows int64
		ok   bool
	}{
		{"a", catalog.FormatLance, 0, true}, // a real zero stays a zero
		{"b", catalog.FormatLance, 42, true},
		{"b", catalog.FormatIceberg, 0, false}, // observations are scoped by format
		{"c", catalog.FormatLance, 0, false},
	}
	for _, tc := range tests {
		st, ok := s.TableStats(tc.id, tc.f)
		if ok != tc.ok || st.Rows != tc.rows || (ok && st.WorkerID != "w1") {
			t.Errorf("%s %s: %+v %v", tc.id, tc.f, st, ok)
		}
	}
}
