package observe

import (
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

func TestChangesAndObservedAt(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	s, err := New(db, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.UnixMilli(1_700_000_000_000)
	steps := []struct {
		name    string
		put     Observation
		changes uint64
	}{
		{"first", obs("t1", catalog.FormatLance, t0, `{"rows":1}`), 1},
		{"older is refused and changes nothing", obs("t1", catalog.FormatLance, t0.Add(-time.Second), `{"rows":0}`), 1},
		{"newer", obs("t1", catalog.FormatLance, t0.Add(time.Second), `{"rows":2}`), 2},
		{"another", obs("t2", catalog.FormatLance, t0, `{}`), 3},
		{"a third evicts the oldest", obs("t3", catalog.FormatLance, t0, `{}`), 4},
	}
	for _, st := range steps {
		if _, err := s.Put(st.put); err != nil {
			t.Fatal(err)
		}
		if got := s.Changes(); got != st.changes {
			t.Errorf("%s: changes %d, want %d", st.name, got, st.changes)
		}
	}
	if at, ok := s.ObservedAt("t1", catalog.FormatLance); ok {
		t.Errorf("evicted t1 still observed at %v", at)
	}
	if at, ok := s.ObservedAt("t3", catalog.FormatLance); !ok || !at.Equal(t0) {
		t.Errorf("t3 observed at %v %v", at, ok)
	}
	if _, ok := s.ObservedAt("t3", catalog.FormatIceberg); ok {
		t.Error("a Lance observation answers for Iceberg")
	}
}
