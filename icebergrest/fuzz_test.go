package icebergrest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floe/floe/jsonstrict"
)

// FuzzDecodeBody: every body the REST decoder refuses is a 400 (or 413)
// with a message, never a panic or a 5xx.
func FuzzDecodeBody(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"namespace":["a"]}`, `{"namespace":["a"],"namespace":["b"]}`, `[`, strings.Repeat("[", 600), `{"name":"t","schema":{"type":"struct","fields":[]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("POST", "/v1/lake/namespaces", strings.NewReader(string(body)))
		var in map[string]any
		err := decodeBody(r, &in)
		if err == nil {
			if jsonstrict.Check(body) != nil {
				t.Fatal("accepted a body the strict check refuses")
			}
			return
		}
		var ae *apiError
		if !errors.As(err, &ae) || (ae.Code != http.StatusBadRequest && ae.Code != http.StatusRequestEntityTooLarge) || ae.Message == "" {
			t.Fatalf("refusal %#v", err)
		}
	})
}
