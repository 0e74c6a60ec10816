package warehouse

import (
	"path"
	"strings"
	"testing"
)

// FuzzParse holds the parser to its promises: whatever it accepts has a
// canonical form that parses back to itself, canonical forms carry no '.',
// '..', doubled or trailing slashes, and Within agrees with path semantics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"/w/b/t", "file:/w", "file:///w//x/", "FILE://localhost/a", "file:/../../x",
		"s3://bkt/a/b", "S3://bkt//a/", "/a/./b", "file://host/x", "relative", "/w/%2e%2e/x"} {
		f.Add(s, "/w")
	}
	f.Fuzz(func(t *testing.T, raw, other string) {
		l, err := Parse(raw)
		if err != nil {
			if !IsClientError(err) || err.Error() == "" {
				t.Fatalf("Parse(%q) failed without a sentence: %v", raw, err)
			}
			return
		}
		s := l.String()
		back, err := Parse(s)
		if err != nil || back != l || back.String() != s {
			t.Fatalf("Parse(%q) = %q does not round-trip: %v, %v", raw, s, back, err)
		}
		p := l.Path()
		if strings.Contains(p, "//") || (len(p) > 1 && strings.HasSuffix(p, "/")) {
			t.Fatalf("canonical %q has doubled or trailing slashes", s)
		}
		for seg := range strings.SplitSeq(p, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("canonical %q has a %q segment", s, seg)
			}
		}
		if l.Scheme() == SchemeFile && path.Clean(p) != p {
			t.Fatalf("canonical path %q is not clean", p)
		}
		o, err := Parse(other)
		if err != nil {
			return
		}
		want := l.Scheme() == o.Scheme() && l.Bucket() == o.Bucket() &&
			(l.Path() == o.Path() || o.Path() == "" || o.Path() == "/" || strings.HasPrefix(l.Path(), o.Path()+"/"))
		if got := l.Within(o); got != want {
			t.Fatalf("%q.Within(%q) = %v, want %v", s, o, got, want)
		}
		if l.Overlaps(o) != (l.Within(o) || o.Within(l)) || l.Overlaps(o) != o.Overlaps(l) {
			t.Fatalf("Overlaps(%q, %q) disagrees with Within", s, o)
		}
	})
}
