package icebergrest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// TestProtectionRefusesEveryDestructivePath: with the table protected, a
// drop (with or without purgeRequested) and a rename away are refused with
// 409 ConflictException naming the table, as is the drop of a protected
// (empty) namespace, naming it; a commit setting or removing
// floe.protected needs manage, though a writer may commit; those routes by
// a writer are 403, force or not; a manager's force (a readwrite key:
// manage on its scope in the grants) drops it, and registering the held
// table's metadata is then refused, pointing at undrop (issue 24).
func TestProtectionRefusesEveryDestructivePath(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, false)
	e.bucket(t, "lake", catalog.FormatIceberg)
	if _, err := e.store.SetBucketHold(ctx, "lake", 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"ns", "other", "keep"} {
		if _, err := e.store.CreateNamespace(ctx, "lake", []string{ns}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ref := catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "t"}
	_, manager, err := e.store.CreateAPIKey(ctx, "manager", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	wk, writer, err := e.store.CreateAPIKey(ctx, "writer", catalog.RoleReadonly, "lake", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.AddGrant(ctx, catalog.Grant{Grantee: catalog.Grantee{Kind: catalog.GranteeAPIKey, ID: wk.ID}, Bucket: "lake", Privilege: "write"}); err != nil {
		t.Fatal(err)
	}
	if code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables", manager, map[string]any{"name": "t", "schema": emptySchema}); code != http.StatusOK {
		t.Fatalf("create t: %d %v", code, body)
	}
	protect := map[string]any{"requirements": []any{}, "updates": []any{map[string]any{"action": "set-properties", "updates": map[string]string{catalog.ProtectedProperty: "true"}}}}
	if code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables/t", writer, protect); code != http.StatusForbidden {
		t.Errorf("setting %s without manage = %d %v; want 403", catalog.ProtectedProperty, code, body)
	}
	if code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables/t", manager, protect); code != http.StatusOK {
		t.Fatalf("protecting by a manager = %d %v", code, body)
	}
	if _, err := e.store.SetNamespaceProtected(ctx, "lake", []string{"keep"}, true); err != nil {
		t.Fatal(err)
	}
	rename := map[string]any{"source": map[string]any{"namespace": []string{"ns"}, "name": "t"},
		"destination": map[string]any{"namespace": []string{"other"}, "name": "t2"}}
	refused := []struct {
		name, method, path, named string
		body                      any
	}{
		{"drop", "DELETE", "/v1/lake/namespaces/ns/tables/t", `table "t"`, nil},
		{"drop with purgeRequested", "DELETE", "/v1/lake/namespaces/ns/tables/t?purgeRequested=true", `table "t"`, nil},
		{"rename away", "POST", "/v1/lake/tables/rename", `table "t"`, rename},
		{"drop of a protected namespace", "DELETE", "/v1/lake/namespaces/keep", `namespace "keep"`, nil},
	}
	withForce := func(p string) string {
		if strings.Contains(p, "?") {
			return p + "&force=true"
		}
		return p + "?force=true"
	}
	for _, rq := range refused {
		code, body := e.call(t, rq.method, rq.path, manager, rq.body)
		if msg := errMessage(body); code != http.StatusConflict || errType(body) != "ConflictException" || !strings.Contains(msg, "protected") || !strings.Contains(msg, rq.named) {
			t.Errorf("%s = %d %v; want 409 ConflictException naming %s", rq.name, code, body, rq.named)
		}
	}
	for _, rq := range refused {
		for _, path := range []string{rq.path, withForce(rq.path)} {
			if code, body := e.call(t, rq.method, path, writer, rq.body); code != http.StatusForbidden || !strings.Contains(errMessage(body), "manage") {
				t.Errorf("%s by a writer (%s) = %d %v; want 403", rq.name, path, code, body)
			}
		}
	}
	unprotect := map[string]any{"requirements": []any{}, "updates": []any{map[string]any{"action": "remove-properties", "removals": []string{catalog.ProtectedProperty}}}}
	if code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables/t", writer, unprotect); code != http.StatusForbidden {
		t.Errorf("removing %s without manage = %d %v; want 403", catalog.ProtectedProperty, code, body)
	}
	if got, err := e.store.GetTable(ctx, ref); err != nil || !got.Protected() {
		t.Fatalf("after the refusals the table is %+v, %v; want it there and protected", got, err)
	}
	_, loaded := e.call(t, "GET", "/v1/lake/namespaces/ns/tables/t", manager, nil)
	metadata, _ := loaded["metadata-location"].(string)
	if code, body := e.call(t, "DELETE", withForce("/v1/lake/namespaces/ns/tables/t?purgeRequested=true"), manager, nil); code != http.StatusNoContent {
		t.Fatalf("forced drop by a manager = %d %v", code, body)
	}
	if _, err := e.store.GetTable(ctx, ref); err == nil {
		t.Fatal("the table is still there after a forced drop")
	}
	// Its data is held: registering its metadata again is refused, pointing
	// at undrop.
	code, body := e.call(t, "POST", "/v1/lake/namespaces/other/register", manager, map[string]any{"name": "t3", "metadata-location": metadata})
	if msg := errMessage(body); metadata == "" || code != http.StatusConflict || !strings.Contains(msg, "recently deleted") || !strings.Contains(msg, "undrop") {
		t.Errorf("register of a recently deleted table's metadata %q = %d %v; want 409 pointing at undrop", metadata, code, body)
	}
	if code, body := e.call(t, "DELETE", withForce("/v1/lake/namespaces/keep"), manager, nil); code != http.StatusNoContent {
		t.Fatalf("forced namespace drop by a manager = %d %v", code, body)
	}
}
