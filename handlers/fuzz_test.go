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

// FuzzParseLiveSub: whatever /live's query holds, ParseLiveSub answers
// without panicking, keeps its caps, and what it accepts round-trips
// through LiveURL (since= among it, to the millisecond).
func FuzzParseLiveSub(f *testing.F) {
	for _, s := range []string{"table=t&refresh=1&since=1764633600000", "since=-1", "since=99999999999999", "since=1e3",
		"jobs=a,b,a&tasks=x&page=maintenance", "page=/jobs", "since=%00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		s, err := ParseLiveSub(q)
		if err != nil {
			return
		}
		if len(s.Jobs) > MaxLiveJobs+1 || len(s.Tasks) > MaxLiveJobs {
			t.Fatalf("caps exceeded: %d jobs, %d tasks", len(s.Jobs), len(s.Tasks))
		}
		back, err := url.ParseQuery(strings.TrimPrefix(LiveURL(s), "/live?"))
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseLiveSub(back)
		if err != nil || !again.Since.Equal(s.Since) || again.Page != s.Page || again.Table != s.Table {
			t.Fatalf("%q: %+v then %+v, %v", raw, s, again, err)
		}
	})
}
