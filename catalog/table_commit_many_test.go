package catalog

import (
	"context"
	"testing"

	"github.com/floe/floe/fault"
)

// TestCommitTables: several tables' metadata pointers move together or not
// at all.
func TestCommitTables(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	a := mustTable(t, s, ref("ice-b", "a"), FormatIceberg)
	b := mustTable(t, s, ref("ice-b", "b"), FormatIceberg)
	got, err := s.CommitTables(ctx, []TableSwap{
		{ID: a.ID, ExpectedToken: a.VersionToken, MetadataLocation: "a1.json", Properties: map[string]string{"k": "a"}},
		{ID: b.ID, ExpectedToken: b.VersionToken, MetadataLocation: "b1.json"},
	})
	if err != nil || len(got) != 2 || got[0].MetadataLocation != "a1.json" || got[1].MetadataLocation != "b1.json" || got[0].Properties["k"] != "a" {
		t.Fatalf("CommitTables = %+v, %v", got, err)
	}
	a1, b1 := got[0], got[1]
	cases := []struct {
		name  string
		swaps []TableSwap
		kind  error
	}{
		{"stale token on the second", []TableSwap{
			{ID: a1.ID, ExpectedToken: a1.VersionToken, MetadataLocation: "a2.json"},
			{ID: b1.ID, ExpectedToken: b.VersionToken, MetadataLocation: "b2.json"}}, fault.Conflict},
		{"second dropped", []TableSwap{
			{ID: a1.ID, ExpectedToken: a1.VersionToken, MetadataLocation: "a2.json"},
			{ID: "00000000-0000-0000-0000-000000000000", ExpectedToken: "x", MetadataLocation: "b2.json"}}, fault.NotFound},
		{"same table twice", []TableSwap{
			{ID: a1.ID, ExpectedToken: a1.VersionToken, MetadataLocation: "a2.json"},
			{ID: a1.ID, ExpectedToken: a1.VersionToken, MetadataLocation: "a3.json"}}, fault.Invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.CommitTables(ctx, c.swaps)
			wantKind(t, err, c.kind)
			for _, want := range []Table{a1, b1} {
				cur, err := s.GetTableByID(ctx, want.ID)
				if err != nil {
					t.Fatal(err)
				}
				if cur.MetadataLocation != want.MetadataLocation || cur.VersionToken != want.VersionToken {
					t.Errorf("table %s moved to %s although the commit failed", cur.Name, cur.MetadataLocation)
				}
			}
		})
	}
}
