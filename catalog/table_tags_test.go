package catalog

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/floe/floe/fault"
)

// TestTableTags: tags given at create are kept, set and removed in one
// update, bounded as S3 Tables bounds them, leave the version token alone,
// follow a rename and die with the table.
func TestTableTags(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	if _, err := s.CreateBucket(ctx, CreateBucketInput{Name: "tagged"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateNamespace(ctx, "tagged", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	ref := TableRef{Bucket: "tagged", Namespace: []string{"ns"}, Name: "t"}
	tb, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: ref, Format: FormatIceberg, Tags: map[string]string{"team": "data", "tier": "gold"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.TableTags(ctx, tb.ID); err != nil || !maps.Equal(got, map[string]string{"team": "data", "tier": "gold"}) {
		t.Fatalf("tags after create = %v, %v", got, err)
	}
	got, err := s.UpdateTableTags(ctx, tb.ID, map[string]string{"env": "prod", "tier": "silver"}, []string{"team"})
	if err != nil || !maps.Equal(got, map[string]string{"env": "prod", "tier": "silver"}) {
		t.Fatalf("after update = %v, %v", got, err)
	}
	after, err := s.GetTableByID(ctx, tb.ID)
	if err != nil || after.VersionToken != tb.VersionToken {
		t.Fatalf("tagging moved the version token: %v %q → %q", err, tb.VersionToken, after.VersionToken)
	}
	for name, set := range map[string]map[string]string{
		"empty key":  {"": "x"},
		"long key":   {strings.Repeat("k", 129): "x"},
		"long value": {"k": strings.Repeat("v", 257)},
	} {
		if _, err := s.UpdateTableTags(ctx, tb.ID, set, nil); !errors.Is(err, fault.Invalid) {
			t.Errorf("%s: err = %v, want Invalid", name, err)
		}
	}
	many := map[string]string{}
	for i := range 49 {
		many[strings.Repeat("k", i+1)] = "v"
	}
	if _, err := s.UpdateTableTags(ctx, tb.ID, many, nil); !errors.Is(err, fault.Invalid) { // 49 + the 2 it has
		t.Errorf("51 tags: err = %v, want Invalid", err)
	}
	if _, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: TableRef{Bucket: "tagged", Namespace: []string{"ns"}, Name: "u"},
		Format: FormatIceberg, Tags: map[string]string{"": "x"}}); !errors.Is(err, fault.Invalid) {
		t.Errorf("create with a bad tag: err = %v, want Invalid", err)
	}
	if _, err := s.RenameTable(ctx, ref, []string{"ns"}, "t2"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.TableTags(ctx, tb.ID); err != nil || got["env"] != "prod" {
		t.Fatalf("tags after rename = %v, %v", got, err)
	}
	if _, err := s.DropTable(ctx, TableRef{Bucket: "tagged", Namespace: []string{"ns"}, Name: "t2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TableTags(ctx, tb.ID); !errors.Is(err, fault.NotFound) {
		t.Fatalf("tags of a dropped table: err = %v, want NotFound", err)
	}
	if _, err := s.UpdateTableTags(ctx, "not-a-uuid", map[string]string{"a": "b"}, nil); !errors.Is(err, fault.NotFound) {
		t.Fatalf("a malformed id: err = %v, want NotFound", err)
	}
}
