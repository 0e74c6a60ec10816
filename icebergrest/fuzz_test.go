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
