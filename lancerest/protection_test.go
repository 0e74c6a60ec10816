package lancerest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestProtectionRefusesEveryDestructivePath: protection covers the thing
// and everything containing it. With the table protected, DropTable,
// DeregisterTable, RenameTable away, DropNamespace Cascade of its
// namespace and of its bucket, and CreateNamespace Overwrite of its
// namespace are refused; with its namespace protected, the namespace's and
// the bucket's; with the bucket protected, the bucket's. Each refusal is a
// 409 whose sentence names what is protected, and nothing changes;
// ?force=true from a caller without manage (an anonymous writer) is 403;
// the broadest of them forced by a manager (readwrite key, the interim
// rule) goes through (issue 24).
func TestProtectionRefusesEveryDestructivePath(t *testing.T) {
	ctx := context.Background()
	type op struct{ name, path, body string }
	var (
		dropTable   = op{"DropTable", "/v1/table/lnc$ns$t/drop?delimiter=%24", `{}`}
		deregister  = op{"DeregisterTable", "/v1/table/lnc$ns$t/deregister?delimiter=%24", `{}`}
		renameAway  = op{"RenameTable away", "/v1/table/lnc$ns$t/rename?delimiter=%24", `{"new_table_name": "t2", "new_namespace_id": ["lnc", "other"]}`}
		cascadeNS   = op{"DropNamespace Cascade", "/v1/namespace/lnc$ns/drop?delimiter=%24", `{"behavior": "Cascade"}`}
		overwriteNS = op{"CreateNamespace Overwrite", "/v1/namespace/lnc$ns/create?delimiter=%24", `{"mode": "Overwrite"}`}
		cascadeB    = op{"DropNamespace Cascade of the bucket", "/v1/namespace/lnc/drop?delimiter=%24", `{"behavior": "Cascade"}`}
	)
	for _, tc := range []struct {
		level, named string
		refused      []op
	}{
		{"table", `table "t"`, []op{dropTable, deregister, renameAway, cascadeNS, overwriteNS, cascadeB}},
		{"namespace", `namespace "ns"`, []op{cascadeNS, overwriteNS, cascadeB}},
		{"bucket", `bucket "lnc"`, []op{cascadeB}},
	} {
		t.Run(tc.level, func(t *testing.T) {
			e := newTestEnv(t, true) // anonymous: anyone writes, nobody without a key manages
			e.seed()
			if _, err := e.store.CreateNamespace(ctx, "lnc", []string{"other"}, nil); err != nil {
				t.Fatal(err)
			}
			ref := catalog.TableRef{Bucket: "lnc", Namespace: []string{"ns"}, Name: "t"}
			if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance}); err != nil {
				t.Fatal(err)
			}
			var err error
			switch tc.level {
			case "table":
				_, err = e.store.SetTableProtected(ctx, ref, true)
			case "namespace":
				_, err = e.store.SetNamespaceProtected(ctx, "lnc", []string{"ns"}, true)
			case "bucket":
				_, err = e.store.SetBucketProtected(ctx, "lnc", true)
			}
			if err != nil {
				t.Fatal(err)
			}
			message := func(r response) string {
				var m struct {
					Error string `json:"error"`
				}
				_ = json.Unmarshal(r.body, &m)
				return m.Error
			}
			for _, key := range []string{"", e.rw} {
				for _, rq := range tc.refused {
					r := e.do("POST", rq.path, key, []byte(rq.body))
					if msg := message(r); r.status != http.StatusConflict || !strings.Contains(msg, "protected") || !strings.Contains(msg, tc.named) {
						t.Errorf("%s (key %t) with the %s protected = %d %s; want 409 naming %s", rq.name, key != "", tc.level, r.status, r.body, tc.named)
					}
				}
			}
			// Asking for force without manage is refused, not ignored.
			for _, rq := range tc.refused {
				r := e.do("POST", strings.Replace(rq.path, "?", "?force=true&", 1), "", []byte(rq.body))
				if r.status != http.StatusForbidden || !strings.Contains(message(r), "manage") {
					t.Errorf("%s with force and no manage = %d %s; want 403", rq.name, r.status, r.body)
				}
			}
			if _, err := e.store.GetTable(ctx, ref); err != nil {
				t.Fatalf("the table is gone after refusals: %v", err)
			}
			// A manager's force goes through.
			last := tc.refused[len(tc.refused)-1]
			if r := e.do("POST", strings.Replace(last.path, "?", "?force=true&", 1), e.rw, []byte(last.body)); r.status != http.StatusOK {
				t.Fatalf("%s with force by a manager = %d %s", last.name, r.status, r.body)
			}
			if _, err := e.store.GetTable(ctx, ref); err == nil {
				t.Fatal("the table is still there after a forced cascade")
			}
		})
	}
}
