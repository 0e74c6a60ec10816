package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/floe/floe/fault"
)

// TestMigrationCanonicalLocations: rows stored before locations were
// canonical are rewritten to file:///…; forms the warehouse cannot parse are
// left alone.
func TestMigrationCanonicalLocations(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	tb := mustTable(t, s, ref("ice-b", "legacy"), FormatIceberg)
	cases := []struct{ stored, metadata, want, wantMeta string }{
		{"/w/ice-b/ns/a", "/w/ice-b/ns/a/metadata/1.json", "file:///w/ice-b/ns/a", "file:///w/ice-b/ns/a/metadata/1.json"},
		{"file:///w/ice-b/ns/b", "", "file:///w/ice-b/ns/b", ""},
		{"file://localhost/w/ice-b/ns/c", "", "file:///w/ice-b/ns/c", ""},
		{"/w/ice-b/ns/d/", "", "file:///w/ice-b/ns/d", ""},
		{"file://w/relative", "", "file://w/relative", ""},
	}
	for _, c := range cases {
		if _, err := s.db.ExecContext(ctx, `UPDATE tables SET location = ?, metadata_location = ? WHERE id = ?`, c.stored, c.metadata, tb.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.ExecContext(ctx, `DELETE FROM persist_migrations WHERE owner = 'catalog' AND version = '0007_canonical_locations'`); err != nil {
			t.Fatal(err)
		}
		if err := s.db.Migrate(ctx, Migrations()); err != nil {
			t.Fatal(err)
		}
		var loc, meta string
		if err := s.db.QueryRowContext(ctx, `SELECT location, metadata_location FROM tables WHERE id = ?`, tb.ID).Scan(&loc, &meta); err != nil {
			t.Fatal(err)
		}
		if loc != c.want || meta != c.wantMeta {
			t.Errorf("%q, %q migrated to %q, %q; want %q, %q", c.stored, c.metadata, loc, meta, c.want, c.wantMeta)
		}
	}
}

func TestRemoteLocationTables(t *testing.T) {
	ctx := context.Background()
	s := lakeFixture(t)
	r := ref("ice-b", "remote")
	// An s3:// location is outside a local warehouse: refused up front
	// with a sentence, never stored and later "deleted" locally.
	_, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: r, Format: FormatIceberg, Location: "s3://bucket/wh/remote"})
	if e := wantKind(t, err, fault.Invalid); !strings.Contains(e.Message, "outside") {
		t.Fatalf("CreateTable at s3 = %v, want a sentence saying it is outside", err)
	}
	if _, err := s.GetTable(ctx, r); !errors.Is(err, fault.NotFound) {
		t.Fatalf("refused table was stored: %v", err)
	}
}
