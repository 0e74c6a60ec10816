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
// 409 whose sentence names what is protected, and nothing changes; a
// writer without manage is refused (403) with or without ?force=true; the
// broadest of them forced by a manager (a readwrite key: manage on its
// scope in the grants) goes through (issue 24).
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
			e := newTestEnv(t, false)
			e.seed()
			wk, writer, err := e.store.CreateAPIKey(ctx, "writer", catalog.RoleReadonly, "lnc", 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := e.store.AddGrant(ctx, catalog.Grant{Grantee: catalog.Grantee{Kind: catalog.GranteeAPIKey, ID: wk.ID}, Bucket: "lnc", Privilege: "write"}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.store.CreateNamespace(ctx, "lnc", []string{"other"}, nil); err != nil {
				t.Fatal(err)
			}
			ref := catalog.TableRef{Bucket: "lnc", Namespace: []string{"ns"}, Name: "t"}
			if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance}); err != nil {
				t.Fatal(err)
			}
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
			for _, rq := range tc.refused {
				r := e.do("POST", rq.path, e.rw, []byte(rq.body))
				if msg := message(r); r.status != http.StatusConflict || !strings.Contains(msg, "protected") || !strings.Contains(msg, tc.named) {
					t.Errorf("%s with the %s protected = %d %s; want 409 naming %s", rq.name, tc.level, r.status, r.body, tc.named)
				}
			}
			// A writer without manage is refused, force or not.
			for _, rq := range tc.refused {
				for _, path := range []string{rq.path, strings.Replace(rq.path, "?", "?force=true&", 1)} {
					r := e.do("POST", path, writer, []byte(rq.body))
					if r.status != http.StatusForbidden || !strings.Contains(message(r), "manage") {
						t.Errorf("%s by a writer (%s) = %d %s; want 403", rq.name, path, r.status, r.body)
					}
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
