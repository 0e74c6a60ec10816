package edge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

type auditLog struct {
	mu    sync.Mutex
	recs  []Record
	reads bool
}

func (a *auditLog) AuditReads() bool { return a.reads }

func (a *auditLog) Audit(r Record) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.recs = append(a.recs, r)
}

func (a *auditLog) take() []Record {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.recs
	a.recs = nil
	return out
}

func auditSurface(t *testing.T, reads bool) (*Surface, *auditLog) {
	t.Helper()
	al := &auditLog{reads: reads}
	auth := AuthFunc(func(r *http.Request) (Principal, error) {
		switch r.Header.Get("x-api-key") {
		case "good":
			return FromKey(catalog.APIKey{ID: "k1", Role: catalog.RoleReadWrite}, "x-api-key"), nil
		case "reader":
			return FromKey(catalog.APIKey{ID: "k2", Role: catalog.RoleReadonly}, "x-api-key"), nil
		}
		return Principal{Kind: APIKey, ID: "unknown", Via: "x-api-key"}, fault.New(fault.Unauthenticated, "", "an API key is required")
	})
	s := New(Config{Name: "test", Encode: func(w http.ResponseWriter, r *http.Request, err error) {
		Failed(r.Context(), err)
		encodeJSON(w, r, err)
	}, Auth: auth, MaxBody: 64, Auditor: al})
	res := identity.Resource{Bucket: "b", Namespace: []string{"ns"}, Table: "t"}
	s.HandleFunc("POST /v1/table/{id}/describe", func(w http.ResponseWriter, r *http.Request) {
		Describe(r.Context(), res)
		io.WriteString(w, "{}")
	}, Op("DescribeTable", Reads))
	s.HandleFunc("POST /v1/table/{id}/drop", func(w http.ResponseWriter, r *http.Request) {
		Describe(r.Context(), res)
		p, _ := PrincipalFrom(r.Context())
		if p.Role != catalog.RoleReadWrite {
			// the handler's own refusal, answered through the encoder
			encodeJSON(w, r, fault.New(fault.Forbidden, "", "read-only key"))
			Failed(r.Context(), fault.New(fault.Forbidden, "", "read-only key"))
			return
		}
		if r.URL.Query().Get("missing") != "" {
			Failed(r.Context(), fault.New(fault.NotFound, "table", "no table"))
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}, Op("DropTable", Writes))
	s.HandleFunc("POST /v1/unmarked", func(w http.ResponseWriter, r *http.Request) {}, Public())
	return s, al
}

func TestAuditRecordsWritesAndRefusalsOnly(t *testing.T) {
	s, al := auditSurface(t, false)
	do := func(path, key string) {
		req := httptest.NewRequest("POST", path, nil)
		req.RemoteAddr = "192.0.2.7:5000"
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		req.Header.Set("X-Request-Id", "rid-"+strings.ReplaceAll(path, "/", "_")+key)
		s.ServeHTTP(httptest.NewRecorder(), req)
	}
	do("/v1/table/b$ns$t/describe", "good")       // read: not recorded
	do("/v1/table/b$ns$t/drop", "good")           // write, ok
	do("/v1/table/b$ns$t/drop?missing=1", "good") // write, 404
	do("/v1/table/b$ns$t/describe", "bad")        // refused read (authentication)
	do("/v1/table/b$ns$t/drop", "reader")         // refused write (the handler's 403)
	do("/v1/nothing-here", "good")                // unmatched: no operation, no record
	recs := al.take()
	type row struct {
		op        string
		write     bool
		refused   bool
		status    int
		kind      fault.Kind
		principal string
	}
	var got []row
	for _, r := range recs {
		got = append(got, row{r.Operation, r.Write, r.Refused, r.Status, r.Kind, r.Principal.String()})
		if r.RequestID == "" || r.Surface != "test" || r.Client != "192.0.2.7:5000" || r.Time.IsZero() {
			t.Errorf("record lacks its request id, surface, client or time: %+v", r)
		}
		if !r.Refused && r.Resource.String() != "b/ns/t" || r.Path == "" {
			t.Errorf("resource = %q, want b/ns/t", r.Resource)
		}
	}
	want := []row{
		{"DropTable", true, false, 204, "", "apikey:k1"},
		{"DropTable", true, false, 404, fault.NotFound, "apikey:k1"},
		{"DescribeTable", false, true, 401, fault.Unauthenticated, "apikey:unknown"},
		{"DropTable", true, true, 400, fault.Forbidden, "apikey:k2"}, // refused by its kind, whatever the status
	}
	if !slices.Equal(got, want) {
		t.Fatalf("records:\n got %+v\nwant %+v", got, want)
	}
}

func TestAuditReadsWhenAsked(t *testing.T) {
	s, al := auditSurface(t, true)
	req := httptest.NewRequest("POST", "/v1/table/x/describe", nil)
	req.Header.Set("x-api-key", "good")
	s.ServeHTTP(httptest.NewRecorder(), req)
	recs := al.take()
	if len(recs) != 1 || recs[0].Operation != "DescribeTable" || recs[0].Write || recs[0].Refused || recs[0].Status != 200 {
		t.Fatalf("with AuditReads a read is one record; got %+v", recs)
	}
}

func TestUnmarkedRoutesAreListed(t *testing.T) {
	s, _ := auditSurface(t, false)
	if got := s.Unmarked(); !slices.Equal(got, []string{"POST /v1/unmarked"}) {
		t.Fatalf("Unmarked = %v", got)
	}
	if got := s.Routes(); len(got) != 2 || got[1].Operation != "DropTable" || got[1].Access != Writes {
		t.Fatalf("Routes = %+v", got)
	}
}
