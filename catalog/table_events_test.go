package catalog

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestOnTableEvent: creates, commits and drops through the store are told
// once each, after they committed, with the table; a refused change is not.
func TestOnTableEvent(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	var mu sync.Mutex
	var got []string
	s.OnTableEvent(func(e TableEvent) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprintf("%s %s/%s deleted=%v hidden=%v", e.Kind, e.Table.Bucket, e.Table.Name, e.DataDeleted, e.Deregistered))
	})
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
	ice := mustTable(t, s, ref("ice-b", "orders"), FormatIceberg)
	mustTable(t, s, ref("lance-b", "vectors"), FormatLance)
	mustTable(t, s, ref("any-b", "a"), FormatIceberg)
	mustTable(t, s, ref("any-b", "b"), FormatLance)
	if ev := take(); !slices.Equal(ev, []string{
		"created ice-b/orders deleted=false hidden=false",
		"created lance-b/vectors deleted=false hidden=false",
		"created any-b/a deleted=false hidden=false",
		"created any-b/b deleted=false hidden=false",
	}) {
		t.Fatalf("creates told %q", ev)
	}
	if _, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: ref("ice-b", "orders"), Format: FormatIceberg}); err == nil {
		if ev := take(); len(ev) != 0 {
			t.Fatalf("a create of an existing table told %q", ev)
		}
	}
	steps := []struct {
		name string
		do   func() error
		want []string
	}{
		{"commit", func() error {
			_, err := s.CommitTable(ctx, ice.ID, ice.VersionToken, "s3://x/metadata/00001.json", nil)
			return err
		}, []string{"committed ice-b/orders deleted=false hidden=false"}},
		{"stale commit", func() error {
			if _, err := s.CommitTable(ctx, ice.ID, ice.VersionToken, "s3://x/metadata/00002.json", nil); err == nil {
				return fmt.Errorf("a stale token committed")
			}
			return nil
		}, nil},
		{"deregister", func() error { _, err := s.DeregisterTable(ctx, ref("lance-b", "vectors")); return err },
			[]string{"dropped lance-b/vectors deleted=false hidden=true"}},
		{"forget", func() error { _, err := s.ForgetTable(ctx, ref("ice-b", "orders")); return err },
			[]string{"dropped ice-b/orders deleted=false hidden=false"}},
		{"cascade", func() error { return s.DeleteBucket(ctx, "any-b", true) },
			[]string{"dropped any-b/a deleted=true hidden=false", "dropped any-b/b deleted=true hidden=false"}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		ev := take()
		slices.Sort(ev)
		if !slices.Equal(ev, st.want) {
			t.Fatalf("%s told %q, want %q", st.name, ev, st.want)
		}
	}
}
