package web

import (
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/handlers"
)

// TestTableConnectStaticVending: under --vend-credentials static the
// Connect tab says that a read-only key gets no store keys and that readers
// need --vend-credentials sts; under sts (or with no s3:// warehouse) it
// says nothing of the kind.
func TestTableConnectStaticVending(t *testing.T) {
	cases := []struct {
		name  string
		store *handlers.SnippetStore
		note  bool
	}{
		{"static", &handlers.SnippetStore{Region: "us-east-1", Vended: true, OwnKeys: true}, true},
		{"sts", &handlers.SnippetStore{Region: "us-east-1", Vended: true}, false},
		{"local", nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Surfaces{Lance: "127.0.0.1:9101"}, func(c *Config) { c.SnippetStore = tc.store })
			e.seed("vec", catalog.FormatLance, "ns", "items")
			r := e.get(e.reader(), "/buckets/vec/namespaces/ns/tables/items/connect")
			note := r.text("table-connect-storage-keys")
			if r.has("table-connect-storage-keys") != tc.note {
				t.Fatalf("storage-key note shown %v, want %v: %q", r.has("table-connect-storage-keys"), tc.note, note)
			}
			if tc.note && (!strings.Contains(note, "gets no storage keys") || !strings.Contains(note, "--vend-credentials sts")) {
				t.Fatalf("note = %q", note)
			}
		})
	}
}
