package warehouse

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	ok := []struct{ in, want string }{
		{"/w/b/t", "file:///w/b/t"},
		{"/w//b/./t/", "file:///w/b/t"},
		{"/", "file:///"},
		{"file:/w/b", "file:///w/b"},
		{"file:///w/b", "file:///w/b"},
		{"file://localhost/w/b", "file:///w/b"},
		{"FILE:///w/b", "file:///w/b"},
		{"File://LocalHost//w//b//", "file:///w/b"},
		{"file:////w/b", "file:///w/b"},
		{"/w/50%25/a b", "file:///w/50%25/a b"}, // taken literally
		{"s3://bkt/a/b", "s3://bkt/a/b"},
		{"S3://bkt//a/./b/", "s3://bkt/a/b"},
		{"s3://bkt", "s3://bkt"},
		{"s3://bkt/", "s3://bkt"},
	}
	for _, c := range ok {
		t.Run(c.in, func(t *testing.T) {
			l, err := Parse(c.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.in, err)
			}
			if l.String() != c.want {
				t.Fatalf("Parse(%q) = %q, want %q", c.in, l, c.want)
			}
		})
	}
	bad := []struct{ in, says string }{
		{"", "empty"},
		{"w/b", "relative"},
		{"./w", "relative"},
		{"file:w/b", "relative"},
		{"file:/../../../etc", "'..'"},
		{"/w/b/../c", "'..'"},
		{"file:///w/..", "'..'"},
		{"file://evil.example/w", "host"},
		{"http://x/y", "scheme"},
		{"s3a://bkt/x", "scheme"},
		{"s3:bkt/x", "S3 URI"},
		{"s3://B/x", "bucket"},
		{"s3://bkt/../x", "'..'"},
		{"/w/\x00b", "control"},
		{"/w/\nb", "control"},
		{"/" + strings.Repeat("a", maxLocationLen), "bytes"},
	}
	for _, c := range bad {
		t.Run("bad "+c.in, func(t *testing.T) {
			_, err := Parse(c.in)
			if !errors.Is(err, ErrBadLocation) {
				t.Fatalf("Parse(%q) = %v, want ErrBadLocation", c.in, err)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Fatalf("Parse(%q) says %q, want it to mention %q", c.in, err, c.says)
			}
		})
	}
}

func mustParse(t testing.TB, s string) Location {
	t.Helper()
	l, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestWithinOverlaps(t *testing.T) {
	cases := []struct {
		a, b            string
		within, overlap bool
	}{
		{"/w/b/t", "/w/b/t", true, true},
		{"/w/b/t/data", "/w/b/t", true, true},
		{"/w/b", "/w/b/t", false, true},
		{"/w/b/t2", "/w/b/t", false, false},
		{"/w/b/tt", "/w/b/t", false, false}, // a prefix of the string is not a parent
		{"/anything", "/", true, true},
		{"file:///w/b/t", "/w/b/t", true, true},
		{"s3://bkt/a/b", "s3://bkt/a", true, true},
		{"s3://bkt/a", "s3://bkt", true, true},
		{"s3://bkt/a", "s3://other/a", false, false},
		{"s3://bkt/w", "/w", false, false},
	}
	for _, c := range cases {
		t.Run(c.a+" in "+c.b, func(t *testing.T) {
			a, b := mustParse(t, c.a), mustParse(t, c.b)
			if got := a.Within(b); got != c.within {
				t.Errorf("Within = %v, want %v", got, c.within)
			}
			if got := a.Overlaps(b); got != c.overlap {
				t.Errorf("Overlaps = %v, want %v", got, c.overlap)
			}
			if a.Overlaps(b) != b.Overlaps(a) {
				t.Errorf("Overlaps is not symmetric")
			}
		})
	}
}

func TestJoinAncestors(t *testing.T) {
	root := mustParse(t, "/w")
	l, err := root.Join("b", "ns.a", "t.lance")
	if err != nil || l.String() != "file:///w/b/ns.a/t.lance" {
		t.Fatalf("Join = %v, %v", l, err)
	}
	for _, seg := range []string{"", ".", "..", "a/b", "a\x00"} {
		if _, err := root.Join(seg); !errors.Is(err, ErrBadLocation) {
			t.Errorf("Join(%q) = %v, want ErrBadLocation", seg, err)
		}
	}
	var got []string
	for _, a := range l.Ancestors() {
		got = append(got, a.String())
	}
	want := "file:/// file:///w file:///w/b file:///w/b/ns.a"
	if strings.Join(got, " ") != want {
		t.Fatalf("Ancestors = %v, want %v", got, want)
	}
	s3 := mustParse(t, "s3://bkt/a/b")
	got = got[:0]
	for _, a := range s3.Ancestors() {
		got = append(got, a.String())
	}
	if strings.Join(got, " ") != "s3://bkt s3://bkt/a" {
		t.Fatalf("S3 Ancestors = %v", got)
	}
}
