package handlers

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDisplayARN(t *testing.T) {
	s3 := Surfaces{S3TablesRegion: "eu-west-3", S3TablesAccount: "123456789012"}
	cases := []struct {
		name     string
		surfaces Surfaces
		in, want string
	}{
		{"bucket", s3, "arn:floe:s3tables:local:000000000000:bucket/lake", "arn:aws:s3tables:eu-west-3:123456789012:bucket/lake"},
		{"table", s3, "arn:floe:s3tables:local:000000000000:bucket/lake/table/0b3c", "arn:aws:s3tables:eu-west-3:123456789012:bucket/lake/table/0b3c"},
		{"no region configured", Surfaces{}, "arn:floe:s3tables:local:000000000000:bucket/lake", "arn:floe:s3tables:local:000000000000:bucket/lake"},
		{"not an S3 Tables ARN", s3, "arn:floe:other:r:a:x", "arn:floe:other:r:a:x"},
		{"not an ARN", s3, "lake", "lake"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := (&Handlers{surfaces: tc.surfaces}).displayARN(tc.in); got != tc.want {
				t.Fatalf("displayARN(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestS3TablesSnippets(t *testing.T) {
	r := httptest.NewRequest("GET", "http://console.example:9400/connect", nil)
	if got := (&Handlers{}).s3tablesSnippets(r); got != nil {
		t.Fatalf("snippets with the surface off: %+v", got)
	}
	h := &Handlers{surfaces: Surfaces{S3Tables: "0.0.0.0:9102", S3TablesRegion: "eu-west-3"}}
	got := h.s3tablesSnippets(r)
	if len(got) != 2 {
		t.Fatalf("%d snippets, want 2", len(got))
	}
	for _, s := range got {
		if !strings.Contains(s.Code, "http://console.example:9102") || !strings.Contains(s.Code, "eu-west-3") || !strings.Contains(s.Code, snippetAccessKeyEnv) || strings.Contains(s.Code, "<") {
			t.Fatalf("snippet %s lacks the address, region or key variable, or has a placeholder:\n%s", s.ID, s.Code)
		}
	}
}
