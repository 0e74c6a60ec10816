package warehouse

import (
	"strings"
	"testing"
)

// TestObjectPath: the object-store form Lance clients use round-trips
// through ParseObjectPath in the same store, and ParseObjectPath refuses
// what Parse refuses.
func TestObjectPath(t *testing.T) {
	local := MustParseForTest(t, "/w/b/ns/t.lance")
	s3 := MustParseForTest(t, "s3://bkt/pre/b/ns/t.lance")
	cases := []struct {
		name    string
		in      Location
		raw     string
		want    string // canonical; "" means refused
		objPath string
	}{
		{"local object path", local, "w/b/ns/t.lance/_versions/1.manifest", "file:///w/b/ns/t.lance/_versions/1.manifest", "w/b/ns/t.lance/_versions/1.manifest"},
		{"local absolute path", local, "/w/b/ns/t.lance/_versions/1.manifest", "file:///w/b/ns/t.lance/_versions/1.manifest", "w/b/ns/t.lance/_versions/1.manifest"},
		{"local URI", local, "file:///w/x", "file:///w/x", "w/x"},
		{"s3 key", s3, "pre/b/ns/t.lance/_versions/2.manifest", "s3://bkt/pre/b/ns/t.lance/_versions/2.manifest", "pre/b/ns/t.lance/_versions/2.manifest"},
		{"s3 URI of another bucket", s3, "s3://other/k", "s3://other/k", "k"},
		{"doubled slashes tidied", s3, "pre//b/./x", "s3://bkt/pre/b/x", "pre/b/x"},
		{"climbing refused", s3, "pre/../../x", "", ""},
		{"climbing refused locally", local, "w/../etc/passwd", "", ""},
		{"control character", local, "w/a\x00b", "", ""},
		{"empty", local, "", "", ""},
		{"other scheme", local, "gs://b/k", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.in.ParseObjectPath(c.raw)
			if c.want == "" {
				if err == nil || !IsClientError(err) {
					t.Fatalf("ParseObjectPath(%q) = %v, %v; want a refusal", c.raw, got, err)
				}
				return
			}
			if err != nil || got.String() != c.want {
				t.Fatalf("ParseObjectPath(%q) = %v, %v; want %s", c.raw, got, err, c.want)
			}
			if got.ObjectPath() != c.objPath {
				t.Errorf("ObjectPath() = %q, want %q", got.ObjectPath(), c.objPath)
			}
			if back, err := got.ParseObjectPath(got.ObjectPath()); err != nil || back != got {
				t.Errorf("ObjectPath %q does not parse back: %v, %v", got.ObjectPath(), back, err)
			}
		})
	}
	if _, err := (Location{}).ParseObjectPath("x"); err == nil {
		t.Error("the zero Location resolved a path")
	}
}

// FuzzParseObjectPath: whatever ParseObjectPath accepts is canonical and its
// object path parses back to the same Location; refusals carry a sentence.
func FuzzParseObjectPath(f *testing.F) {
	for _, s := range []string{"w/b/t.lance/_versions/1.manifest", "/w/x", "pre/../x", "s3://bkt/k", "a//b/", ""} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, raw string, onS3 bool) {
		base := Location{scheme: SchemeFile, path: "/w"}
		if onS3 {
			base = Location{scheme: SchemeS3, bucket: "bkt", path: "w"}
		}
		l, err := base.ParseObjectPath(raw)
		if err != nil {
			if !IsClientError(err) || err.Error() == "" {
				t.Fatalf("ParseObjectPath(%q) failed without a sentence: %v", raw, err)
			}
			return
		}
		if back, err := Parse(l.String()); err != nil || back != l {
			t.Fatalf("%q is not canonical: %v, %v", l, back, err)
		}
		if strings.Contains(l.Path(), "/../") {
			t.Fatalf("%q keeps a '..'", l)
		}
		// A store's root has the empty object path, which names nothing.
		if l.Scheme() == base.Scheme() && l.Bucket() == base.Bucket() && l.ObjectPath() != "" {
			if back, err := base.ParseObjectPath(l.ObjectPath()); err != nil || back != l {
				t.Fatalf("ObjectPath %q of %q parses to %v, %v", l.ObjectPath(), l, back, err)
			}
		}
	})
}

// MustParseForTest parses a location the test itself spells.
func MustParseForTest(t *testing.T, raw string) Location {
	t.Helper()
	l, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
