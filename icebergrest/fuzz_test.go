package icebergrest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floe/floe/iceberg"
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

// FuzzDecodeCommitAndPlan: a commit or plan request body is decoded, or
// refused as a bad request with a sentence; an accepted commit always has
// updates (the strict shape), an accepted plan request never a field the
// spec lacks.
func FuzzDecodeCommitAndPlan(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `{"updates":[]}`, `{"requirements":[],"updates":[{"action":"set-properties","updates":{"a":"b"}}]}`,
		`{"properties":{"a":"b"}}`, `{"filter":{"type":"eq","term":"id","value":1},"snapshot-id":1}`, `{"select":["a"],"x":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		refused := func(err error) bool {
			var ae *apiError
			var ie *iceberg.Error
			switch {
			case errors.As(err, &ae):
				return (ae.Code == http.StatusBadRequest || ae.Code == http.StatusRequestEntityTooLarge) && ae.Message != ""
			case errors.As(err, &ie):
				return errors.Is(ie, iceberg.ErrInvalid) && ie.Message != ""
			}
			return false
		}
		var c iceberg.CommitInput
		if err := decodeBody(httptest.NewRequest("POST", "/", strings.NewReader(string(body))), &c); err == nil {
			if c.Updates == nil {
				t.Fatalf("accepted a commit without updates: %s", body)
			}
		} else if !refused(err) {
			t.Fatalf("commit refusal %#v", err)
		}
		var p iceberg.ScanRequest
		if err := decodeOptionalBody(httptest.NewRequest("POST", "/", strings.NewReader(string(body))), &p); err != nil && !refused(err) {
			t.Fatalf("plan refusal %#v", err)
		}
	})
}
