package icebergrest

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
)

// load sends GET with optional If-None-Match; it returns status, ETag and
// body length.
func (e *testEnv) load(t *testing.T, path, ifNoneMatch string) (int, string, int) {
	t.Helper()
	req, err := http.NewRequest("GET", e.http.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("ETag"), len(b)
}

// TestLoadTableETag: LoadTable sends an ETag, If-None-Match with the current
// one answers 304 without a body, and a commit by iceberg-go changes it.
func TestLoadTableETag(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl := createEventsTable(t, ctx, cat, table.Identifier{"sales", "events"})
	path := "/v1/lake/namespaces/sales/tables/events"

	code, etag, n := e.load(t, path, "")
	if code != 200 || etag == "" || n == 0 {
		t.Fatalf("first load: %d etag %q, %d bytes", code, etag, n)
	}
	cases := []struct {
		name, ifNoneMatch string
		code              int
	}{
		{"current", etag, 304},
		{"weak current", "W/" + etag, 304},
		{"in a list", `"other", ` + etag, 304},
		{"star", "*", 304},
		{"other", `"0123"`, 200},
		{"unquoted current", etag[1 : len(etag)-1], 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, got, n := e.load(t, path, c.ifNoneMatch)
			if code != c.code || got != etag {
				t.Fatalf("status %d etag %q, want %d %q", code, got, c.code, etag)
			}
			if code == 304 && n != 0 {
				t.Fatalf("304 with a %d-byte body", n)
			}
		})
	}

	if _, err := tbl.AppendTable(ctx, batch(0, 10), 1024, nil); err != nil {
		t.Fatalf("append: %v", err)
	}
	code, next, n := e.load(t, path, etag)
	if code != 200 || n == 0 || next == etag || next == "" {
		t.Fatalf("after a commit: %d etag %q (was %q), %d bytes", code, next, etag, n)
	}
	if code, _, _ := e.load(t, path, next); code != 304 {
		t.Fatalf("new etag: %d, want 304", code)
	}
	if code, other, _ := e.load(t, path+"?snapshots=refs", next); code != 200 || other == next {
		t.Fatalf("snapshots=refs shares the etag: %d %q", code, other)
	}
}
