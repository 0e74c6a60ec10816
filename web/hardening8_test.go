package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// Hardening item 8: docs/SECURITY.md promises a readonly console user every
// page. The Iceberg create-table form is one: it answers 200 with every
// control disabled and a sentence saying why, and its POST stays refused.
func TestHardening8ReadonlySeesCreateTableFormDisabled(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	rc := e.reader()

	page := e.get(rc, createPath)
	if page.status != http.StatusOK {
		t.Fatalf("readonly GET %s = %d, want 200: %s", createPath, page.status, page.body)
	}
	if !page.has("iceberg-create-form") {
		t.Fatalf("the form is not shown: %s", page.body)
	}
	if !strings.Contains(page.text("readonly-notice"), "read-only") {
		t.Errorf("no sentence saying why the form is disabled: %q", page.text("readonly-notice"))
	}
	fields := page.doc.Find(`[data-testid="iceberg-create-fields"]`)
	if _, disabled := fields.Attr("disabled"); !disabled || fields.Length() != 1 {
		t.Errorf("the form's fieldset is not disabled: %d found", fields.Length())
	}
	// Every control sits inside the disabled fieldset, so none can be used.
	for _, sel := range []string{"input", "select", "button"} {
		all := page.doc.Find(`[data-testid="iceberg-create-form"] ` + sel).Length()
		inside := fields.Find(sel).Length()
		if all == 0 || all != inside {
			t.Errorf("%d %s controls, %d of them disabled", all, sel, inside)
		}
	}
	if r := e.post(rc, createPath, icebergForm("events")); r.status != http.StatusForbidden {
		t.Errorf("readonly POST = %d, want 403", r.status)
	}
	if _, err := e.table("lake", "raw", "events"); err == nil {
		t.Error("a readonly POST created the table")
	}

	// An admin gets the same form enabled and no notice.
	admin := e.get(e.admin(), createPath)
	if _, disabled := admin.doc.Find(`[data-testid="iceberg-create-fields"]`).Attr("disabled"); disabled || admin.has("readonly-notice") {
		t.Errorf("the admin's form is disabled or carries the readonly notice")
	}
}
