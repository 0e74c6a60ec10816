package catalog

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// TestOnTableChange: each way a table's content can change through the
// store tells the hook its id; a failed commit does not.
func TestOnTableChange(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	var mu sync.Mutex
	var got []string
	s.OnTableChange(func(id string) {
		mu.Lock()
		got = append(got, id)
		mu.Unlock()
	})
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
	tb := mustTable(t, s, ref("ice-b", "orders"), FormatIceberg)
	if ids := take(); !slices.Equal(ids, []string{tb.ID}) {
		t.Fatalf("create told %v, want [%s]", ids, tb.ID)
	}
	cases := []struct {
		name string
		do   func() error
		want []string
	}{
		{"commit", func() error {
			_, err := s.CommitTable(ctx, tb.ID, tb.VersionToken, "s3://x/metadata/00001.json", nil)
			return err
		}, []string{tb.ID}},
		{"a commit at a stale token", func() error {
			_, err := s.CommitTable(ctx, tb.ID, tb.VersionToken, "s3://x/metadata/00002.json", nil)
			if err == nil {
				t.Error("a stale token committed")
			}
			return nil
		}, nil},
		{"multi-table commit", func() error {
			cur, err := s.GetTableByID(ctx, tb.ID)
			if err != nil {
				return err
			}
			_, err = s.CommitTables(ctx, []TableSwap{{ID: tb.ID, ExpectedToken: cur.VersionToken, MetadataLocation: "s3://x/metadata/00003.json"}})
			return err
		}, []string{tb.ID}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.do(); err != nil {
				t.Fatal(err)
			}
			if ids := take(); !slices.Equal(ids, c.want) {
				t.Fatalf("hook told %v, want %v", ids, c.want)
			}
		})
	}
	s.OnTableChange(nil)
	mustTable(t, s, ref("ice-b", "quiet"), FormatIceberg)
	if ids := take(); len(ids) != 0 {
		t.Fatalf("after OnTableChange(nil) the hook still ran: %v", ids)
	}
}
