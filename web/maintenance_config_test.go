package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
)

// recordingAuditor keeps what the edge records.
type recordingAuditor struct {
	mu   sync.Mutex
	recs []edge.Record
}

func (a *recordingAuditor) Audit(r edge.Record) {
	a.mu.Lock()
	a.recs = append(a.recs, r)
	a.mu.Unlock()
}
func (a *recordingAuditor) AuditReads() bool { return false }

func (a *recordingAuditor) find(op string) (edge.Record, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.recs {
		if r.Operation == op {
			return r, true
		}
	}
	return edge.Record{}, false
}

const maintTab = "/buckets/lake/namespaces/ns/tables/events/maintenance"

// TestTableMaintenanceConfig: the tab shows each kind's effective setting
// and its source, saves the table's own through the catalog the S3 Tables
// API reads, refuses bad values inline with 422, keeps destructive kinds
// behind the bucket's opt-in, and resets to inherit.
func TestTableMaintenanceConfig(t *testing.T) {
	e := newEnv(t, Surfaces{})
	e.seed("lake", catalog.FormatIceberg, "ns", "events")
	tb, err := e.table("lake", "ns", "events")
	if err != nil {
		t.Fatal(err)
	}
	admin := e.admin()
	r := e.get(admin, maintTab)
	if r.status != http.StatusOK || !r.has("maint-config") {
		t.Fatalf("tab: %d, config section %v", r.status, r.has("maint-config"))
	}
	for _, kind := range []string{"icebergCompaction", "icebergSnapshotManagement", "icebergUnreferencedFileRemoval"} {
		if !r.has("maint-kind-" + kind) {
			t.Errorf("an Iceberg table's tab lacks %s", kind)
		}
	}
	if got := r.doc.Find(`[data-testid="maint-setting-icebergCompaction-targetFileSizeMB"]`).AttrOr("data-from", ""); got != "jobtype" {
		t.Errorf("untouched target size comes from %q; want the job type's default", got)
	}
	if !strings.Contains(r.text("maint-note-icebergSnapshotManagement"), "destructive maintenance is off") {
		t.Errorf("snapshot expiry does not say the bucket keeps it off: %q", r.text("maint-note-icebergSnapshotManagement"))
	}
	if r.has("maint-form-icebergUnreferencedFileRemoval") {
		t.Error("a bucket-level kind offers a table form")
	}

	bad := []struct {
		name, field, want string
		form              url.Values
	}{
		{"below the range", "targetFileSizeMB", "64", url.Values{"kind": {"icebergCompaction"}, "status": {"enabled"}, "targetFileSizeMB": {"20"}}},
		{"not a number", "targetFileSizeMB", "whole number", url.Values{"kind": {"icebergCompaction"}, "status": {"enabled"}, "targetFileSizeMB": {"big"}}},
		{"no status", "status", "required", url.Values{"kind": {"icebergCompaction"}, "status": {""}}},
		{"destructive without the opt-in", "status", "safety settings", url.Values{"kind": {"icebergSnapshotManagement"}, "status": {"enabled"}}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			r := e.post(admin, maintTab+"/config", tc.form)
			if r.status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d; want 422", r.status)
			}
			if msg := r.text("error-" + tc.field); !strings.Contains(msg, tc.want) {
				t.Fatalf("error at %s = %q; want a sentence with %q", tc.field, msg, tc.want)
			}
			if !r.has("maint-config") || r.doc.Find(`[data-testid="maint-kind-`+tc.form.Get("kind")+`"] details[open]`).Length() != 1 {
				t.Fatal("the refused form is not shown open again")
			}
		})
	}
	if cs, _ := e.store.TableMaintenance(context.Background(), tb.ID); cs[0].Stored || cs[1].Stored {
		t.Fatalf("a refused form stored %+v", cs)
	}

	r = e.post(admin, maintTab+"/config", url.Values{"kind": {"icebergCompaction"}, "status": {"disabled"}, "targetFileSizeMB": {"128"}, "action": {"save"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", r.status, r.body)
	}
	cs, err := e.store.TableMaintenance(context.Background(), tb.ID) // what GetTableMaintenanceConfiguration answers
	if err != nil || !cs[0].Stored || cs[0].Enabled || cs[0].Settings.TargetFileSizeMB != 128 {
		t.Fatalf("stored: %+v, %v", cs, err)
	}
	r = e.get(admin, maintTab)
	if got := r.doc.Find(`[data-testid="maint-setting-icebergCompaction-targetFileSizeMB"]`).AttrOr("data-from", ""); got != "table" || !strings.Contains(r.text("maint-setting-icebergCompaction-targetFileSizeMB"), "128") {
		t.Errorf("after save the size shows %q from %q", r.text("maint-setting-icebergCompaction-targetFileSizeMB"), got)
	}
	if !strings.Contains(r.text("maint-enabled-icebergCompaction"), "disabled") || !r.has("maint-inherit-icebergCompaction") {
		t.Errorf("after save: %q, reset offered %v", r.text("maint-enabled-icebergCompaction"), r.has("maint-inherit-icebergCompaction"))
	}

	// With the bucket's opt-in, the destructive kind can be turned on.
	if err := e.store.SetDestructiveMaintenance(context.Background(), "lake", true); err != nil {
		t.Fatal(err)
	}
	if r := e.post(admin, maintTab+"/config", url.Values{"kind": {"icebergSnapshotManagement"}, "status": {"enabled"}, "minSnapshotsToKeep": {"3"}}); r.status != http.StatusSeeOther {
		t.Fatalf("destructive kind with the opt-in: %d", r.status)
	}

	r = e.post(admin, maintTab+"/config", url.Values{"kind": {"icebergCompaction"}, "action": {"inherit"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("inherit: %d", r.status)
	}
	cs, _ = e.store.TableMaintenance(context.Background(), tb.ID)
	if cs[0].Stored || !cs[0].Enabled || cs[1].Settings.MinSnapshotsToKeep != 3 {
		t.Fatalf("after reset: %+v", cs)
	}
	if r := e.post(admin, maintTab+"/config", url.Values{"kind": {"icebergUnreferencedFileRemoval"}, "status": {"enabled"}}); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("a bucket-level kind saved on a table: %d", r.status)
	}
}

// TestTableMaintenanceConfigReader: a reader sees the settings as text with
// no form, and a post is refused with 403, a sentence and an audit record.
func TestTableMaintenanceConfigReader(t *testing.T) {
	aud := &recordingAuditor{}
	e := newEnv(t, Surfaces{}, func(c *Config) { c.Auditor = aud })
	e.seed("vec", catalog.FormatLance, "ns", "items")
	tab := "/buckets/vec/namespaces/ns/tables/items/maintenance"
	r := e.get(e.reader(), tab)
	if r.status != http.StatusOK || !r.has("maint-kind-icebergCompaction") || !r.has("maint-kind-icebergSnapshotManagement") {
		t.Fatalf("reader's tab: %d %v", r.status, r.has("maint-config"))
	}
	if r.has("maint-kind-icebergUnreferencedFileRemoval") {
		t.Error("a Lance table shows orphan removal, which only Iceberg tables get")
	}
	if n := r.doc.Find(`#maint-config form, #maint-config input, #maint-config select`).Length(); n != 0 {
		t.Fatalf("a reader is shown %d controls", n)
	}
	r = e.post(e.reader(), tab+"/config", url.Values{"kind": {"icebergCompaction"}, "status": {"disabled"}})
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "read-only") && !strings.Contains(r.body, "may not") {
		t.Fatalf("reader's post: %d %s", r.status, r.body)
	}
	rec, ok := aud.find("PutTableMaintenanceConfig")
	if !ok || !rec.Refused || rec.Status != http.StatusForbidden || rec.Resource.Table != "items" {
		t.Fatalf("audit record of the refusal: %+v (found %v)", rec, ok)
	}
	tb, _ := e.table("vec", "ns", "items")
	if cs, _ := e.store.TableMaintenance(context.Background(), tb.ID); cs[0].Stored {
		t.Fatal("a reader's post was stored")
	}
}

// TestBucketSafetyReader: a reader sees the hold and the destructive switch
// as text, not a disabled form.
func TestBucketSafetyReader(t *testing.T) {
	e := newEnv(t, Surfaces{})
	e.seed("lake", catalog.FormatIceberg, "")
	r := e.get(e.reader(), "/buckets/lake")
	if r.has("bucket-safety-form") || r.has("hold-input") || !r.has("bucket-safety-values") {
		t.Fatalf("reader: form %v, values %v", r.has("bucket-safety-form"), r.has("bucket-safety-values"))
	}
	if !strings.Contains(r.text("destructive-value"), "Not scheduled") {
		t.Errorf("destructive switch reads %q", r.text("destructive-value"))
	}
	if a := e.get(e.admin(), "/buckets/lake"); !a.has("bucket-safety-form") {
		t.Error("a manager lost the form")
	}
}
