package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrintStartBox(t *testing.T) {
	cases := []struct {
		name, password string
		want, not      []string
	}{
		{"first start", "s3cret-generated", []string{"Console:  http://127.0.0.1:9400", "Password: s3cret-generated", "floe user passwd admin"}, nil},
		{"later starts", "", []string{"Console:  http://127.0.0.1:9400"}, []string{"Password", "passwd"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			printStartBox(&b, "http://127.0.0.1:9400", tc.password)
			out := b.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("unexpected %q in:\n%s", n, out)
				}
			}
			// Every line of the frame is the same width, so the box closes.
			var width int
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				n := utf8.RuneCountInString(l)
				if width == 0 {
					width = n
				}
				if n != width {
					t.Errorf("ragged box line (%d, want %d): %q", n, width, l)
				}
			}
		})
	}
}
