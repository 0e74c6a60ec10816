package icebergrest

import (
	"path/filepath"
	"testing"
)

// TestIssue23Item3SetLocationIntoAnotherTable: a commit's set-location to
// another table's location, inside it or around it answered 200 and wrote
// metadata into the victim's directory that purge never deleted, metadata
// that claimed the victim's files. An existing table cannot move at all now
// (floe keeps one location per table); a staged create may name its
// location, under the same overlap rule CreateTable uses. Either way the
// victim's directory stays exactly as it was.
func TestIssue23Item3SetLocationIntoAnotherTable(t *testing.T) {
	e, nsDir := attackEnv(t)
	victim := createVictim(t, e, nsDir, "victim")
	if code, body := e.call(t, "POST", "/v1/ice/namespaces/ns1/tables", "", map[string]any{"name": "mover", "schema": emptySchema}); code != 200 {
		t.Fatalf("create mover: %d %v", code, body)
	}
	before := tree(t, filepath.Dir(victim))
	moverLoc := "file://" + filepath.Join(nsDir, "mover")
	targets := map[string]string{
		"equal":  "file://" + victim,
		"inside": "file://" + victim + "/data/x",
		"around": "file://" + nsDir,
		"free":   "file://" + filepath.Join(nsDir, "elsewhere"),
	}
	for name, loc := range targets {
		t.Run("commit "+name, func(t *testing.T) {
			code, body := e.call(t, "POST", "/v1/ice/namespaces/ns1/tables/mover", "", map[string]any{
				"requirements": []any{}, "updates": []any{map[string]any{"action": "set-location", "location": loc}}})
			if code != 400 || errType(body) != typeBadRequest {
				t.Fatalf("set-location %s: %d %v; want 400", loc, code, body)
			}
			wantRefused(t, "set-location "+loc, code, body)
		})
		t.Run("transaction "+name, func(t *testing.T) {
			code, body := e.call(t, "POST", "/v1/ice/transactions/commit", "", map[string]any{"table-changes": []any{map[string]any{
				"identifier":   map[string]any{"namespace": []string{"ns1"}, "name": "mover"},
				"requirements": []any{}, "updates": []any{map[string]any{"action": "set-location", "location": loc}}}}})
			if code != 400 {
				t.Fatalf("set-location %s in a transaction: %d %v; want 400", loc, code, body)
			}
		})
	}
	stagedCreate := func(name, loc string) (int, map[string]any) {
		return e.call(t, "POST", "/v1/ice/namespaces/ns1/tables/"+name, "", map[string]any{
			"requirements": []any{map[string]any{"type": "assert-create"}},
			"updates": []any{
				map[string]any{"action": "assign-uuid", "uuid": "00000000-0000-4000-8000-000000000001"},
				map[string]any{"action": "add-schema", "schema": map[string]any{"type": "struct", "schema-id": 0, "fields": []any{}}},
				map[string]any{"action": "set-current-schema", "schema-id": -1},
				map[string]any{"action": "set-location", "location": loc},
			}})
	}
	for _, name := range []string{"equal", "inside", "around"} {
		t.Run("staged create "+name, func(t *testing.T) {
			loc := targets[name]
			code, body := stagedCreate("staged", loc)
			wantRefused(t, "staged create at "+loc, code, body)
			if code, _ := e.call(t, "GET", "/v1/ice/namespaces/ns1/tables/staged", "", nil); code != 404 {
				t.Fatalf("the refused staged create exists: %d", code)
			}
		})
	}
	if code, body := stagedCreate("staged", targets["free"]); code != 200 {
		t.Fatalf("a staged create at a free location: %d %v", code, body)
	}
	// Naming its own location again changes nothing and is not refused.
	code, body := e.call(t, "POST", "/v1/ice/namespaces/ns1/tables/mover", "", map[string]any{
		"requirements": []any{}, "updates": []any{map[string]any{"action": "set-location", "location": moverLoc + "/"}}})
	if code != 200 {
		t.Fatalf("set-location to its own location: %d %v", code, body)
	}
	after := tree(t, filepath.Dir(victim))
	for p := range after {
		if _, ok := before[p]; !ok && !within(p, filepath.Join(nsDir, "mover")) && !within(p, filepath.Join(nsDir, "elsewhere")) {
			t.Errorf("a refused set-location left %s", p)
		}
	}
	beforeVictim := map[string]int64{}
	for p, n := range before {
		if within(p, victim) {
			beforeVictim[p] = n
		}
	}
	sameTree(t, "victim's files", beforeVictim, tree(t, victim))
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}
