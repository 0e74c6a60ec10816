package taskapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floe/floe/jsonstrict"
)

// FuzzReadBody: the task API's body reader either accepts a body the strict
// JSON check accepts, or refuses it with a 400 and a sentence.
func FuzzReadBody(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"compaction_mode":"reencode"}`, `{"a":1,"a":2}`, `{"x":{"y":1,"y":2}}`, strings.Repeat("[", 600), `{"target_rows_per_fragment":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("POST", "/lance/oss/v1/table/ns$t/compact", strings.NewReader(string(body)))
		got, e := readBody(r)
		if e != nil {
			if e.status != http.StatusBadRequest || e.detail == "" {
				t.Fatalf("refusal %+v", e)
			}
			return
		}
		if string(got) != string(body) {
			t.Fatal("the body changed on the way in")
		}
		if jsonstrict.Check(body) != nil {
			t.Fatal("accepted a body the strict check refuses")
		}
	})
}
