package tasks

import (
	"context"
	"errors"
	"testing"
)

func TestReconcile(t *testing.T) {
	store := openStore(t, t.TempDir())
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	s := newService(t, store, &fakeRunner{})
	ctx := context.Background()
	a := mustSubmit(t, s, tb, TypeCompact, "")
	b := mustSubmit(t, s, tb, TypeCompact, "")
	c := mustSubmit(t, s, tb, TypeCompact, "")
	states := map[string]JobUpdate{
		"job-1": {State: "succeeded", Result: JobResult(`{"fragments_removed": 2}`, nil)},
		"job-2": {State: "running"},
	}
	lookup := func(_ context.Context, id string) (JobUpdate, error) {
		u, ok := states[id]
		if !ok {
			return JobUpdate{}, errors.New("no such job")
		}
		return u, nil
	}
	n, err := s.Reconcile(ctx, lookup)
	if err != nil || n != 2 {
		t.Fatalf("Reconcile = %d, %v; want 2", n, err)
	}
	if got := mustGet(t, s, tb.ID, a.ID); got.Status != StatusCompleted || got.Result["fragments_removed"] == nil {
		t.Fatalf("a = %+v", got)
	}
	if got := mustGet(t, s, tb.ID, b.ID); got.Status != StatusRunning {
		t.Fatalf("b = %+v", got)
	}
	if got := mustGet(t, s, tb.ID, c.ID); got.Status != StatusSubmitted {
		t.Fatalf("c = %+v", got)
	}
	if n, _ := s.Reconcile(ctx, lookup); n != 0 {
		t.Fatalf("second pass changed %d", n)
	}
	if n, err := s.PurgeTable(ctx, tb.ID); err != nil || n != 3 {
		t.Fatalf("PurgeTable = %d, %v", n, err)
	}
}

func TestJobResult(t *testing.T) {
	if r := JobResult(`{"a": 1}`, map[string]string{"b": "2"}); r["a"] == nil || r["b"] != nil {
		t.Fatalf("JSON wins: %v", r)
	}
	if r := JobResult(`not json`, map[string]string{"b": "2"}); r["b"] != "2" {
		t.Fatalf("map fallback: %v", r)
	}
	if r := JobResult("", nil); r == nil || len(r) != 0 {
		t.Fatalf("empty: %v", r)
	}
}
