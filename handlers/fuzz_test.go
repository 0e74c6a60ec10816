package handlers

import (
	"net/url"
	"strings"
	"testing"
	"unicode"
)

// FuzzSafeNext: whatever safeNext keeps is a path on this site, with nothing
// a browser would strip or reinterpret to reach another host.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/buckets", "/%09/evil.example", "/\t/evil.example", "//evil", `/\evil`, "/a?b=c#d", "https://x/", "/\u2028x"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://floe.invalid/login")
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		if got == "" {
			return
		}
		if got != next {
			t.Fatalf("safeNext changed %q to %q", next, got)
		}
		if strings.HasPrefix(got, "//") || strings.ContainsRune(got, '\\') {
			t.Fatalf("kept %q", got)
		}
		for _, r := range got {
			if unicode.IsControl(r) || unicode.IsSpace(r) {
				t.Fatalf("kept %q with %U", got, r)
			}
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("kept unparsable %q", got)
		}
		if abs := base.ResolveReference(u); abs.Host != base.Host || abs.Scheme != base.Scheme {
			t.Fatalf("kept %q which resolves to %s", got, abs)
		}
	})
}
