package icebergrest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floe/floe/fault"
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

// FuzzBucketName: a warehouse or {prefix} is a bare name (kept as it is)
// or a table bucket ARN of this server's region and account, whose name
// is one path segment; anything else is a 400 with a sentence, never a
// panic.
func FuzzBucketName(f *testing.F) {
	for _, s := range []string{"lake", "", "arn:", "arn:aws:s3tables:us-east-1:123456789012:bucket/lake", "arn:floe:s3tables:local:000000000000:bucket/lake",
		"arn:aws:s3tables:us-east-1:123456789012:bucket/lake/table/x", "arn:aws:s3tables:eu-west-1:123456789012:bucket/lake", "arn:aws:s3:::b", "arn:::::"} {
		f.Add(s)
	}
	s := &Server{region: testRegion, account: testAccount}
	f.Fuzz(func(t *testing.T, prefix string) {
		name, kind, err := s.bucketName(prefix)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.Code != http.StatusBadRequest || ae.Message == "" || !strings.HasPrefix(prefix, "arn:") {
				t.Fatalf("%q: refusal %#v", prefix, err)
			}
			return
		}
		switch {
		case !strings.HasPrefix(prefix, "arn:"):
			if name != prefix || kind.floe {
				t.Fatalf("%q: a bare name came back as %q", prefix, name)
			}
		case name == "" || strings.Contains(name, "/") || !strings.HasSuffix(prefix, ":bucket/"+name):
			t.Fatalf("%q: ARN gave the name %q", prefix, name)
		case !kind.floe && !strings.HasPrefix(prefix, "arn:aws:s3tables:"+testRegion+":"+testAccount+":"):
			t.Fatalf("%q: accepted an ARN of another region or account", prefix)
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
			var ie *fault.Error
			switch {
			case errors.As(err, &ae):
				return (ae.Code == http.StatusBadRequest || ae.Code == http.StatusRequestEntityTooLarge) && ae.Message != ""
			case errors.As(err, &ie):
				return errors.Is(ie, fault.Invalid) && ie.Message != ""
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
