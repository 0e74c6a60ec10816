package warehouse

import (
	"strings"
)

// Scheme names the store a Location lives in.
type Scheme string

const (
	SchemeFile Scheme = "file"
	SchemeS3   Scheme = "s3"
)

// Location is a canonical place in a warehouse: "file:///abs/clean/path" or
// "s3://bucket/key/prefix". Canonical means no trailing slash, no "." or
// ".." segments and no doubled slashes, so two Locations name the same
// place exactly when their String forms are equal. The zero Location is
// "no location"; only Parse and Join make others.
type Location struct {
	scheme Scheme
	bucket string // s3 only
	path   string // file: "/a/b" ("/" for the root); s3: "a/b" ("" for the bucket)
}

// maxLocationLen bounds what Parse reads: longer than any path a file system
// or S3 key (1024 bytes) accepts, so nothing real is refused.
const maxLocationLen = 4096

// Parse is the one location parser. It accepts a plain absolute path,
// file:/p, file:///p, file://localhost/p (scheme in any case), s3://bucket/key,
// and tidies doubled slashes, trailing slashes and "." segments. It refuses,
// with a sentence, relative paths, any ".." segment (never resolved, so no
// spelling can climb out of a directory), hosts other than localhost, other
// schemes and control characters. Percent signs are taken literally: floe
// stores paths, not URL-encoded paths.
func Parse(raw string) (Location, error) {
	if raw == "" {
		return Location{}, errorf(ErrBadLocation, "location is empty; give an absolute path or a file:// or s3:// URI")
	}
	if len(raw) > maxLocationLen {
		return Location{}, errorf(ErrBadLocation, "location is %d bytes long; at most %d are accepted", len(raw), maxLocationLen)
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c < 0x20 || c == 0x7f {
			return Location{}, errorf(ErrBadLocation, "location %q contains a control character; remove it", raw)
		}
	}
	scheme, rest, hasScheme := splitScheme(raw)
	if !hasScheme {
		if !strings.HasPrefix(raw, "/") {
			return Location{}, errorf(ErrBadLocation, "location %q is relative; give an absolute path or a file:// URI", raw)
		}
		return fileLocation(raw, raw)
	}
	switch strings.ToLower(scheme) {
	case "file":
		return parseFile(raw, rest)
	case "s3":
		return parseS3(raw, rest)
	default:
		return Location{}, errorf(ErrBadLocation, "location %q uses scheme %q; floe stores tables at file:// or s3:// locations", raw, scheme)
	}
}

// splitScheme finds "scheme:" at the start of raw (RFC 3986 scheme letters,
// before any slash). A plain path never has one.
func splitScheme(raw string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(raw, ':')
	if i <= 0 || strings.IndexByte(raw[:i], '/') >= 0 {
		return "", "", false
	}
	for j, c := range raw[:i] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	return raw[:i], raw[i+1:], true
}

func parseFile(raw, rest string) (Location, error) {
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		host, p, _ := strings.Cut(after, "/")
		if host != "" && !strings.EqualFold(host, "localhost") {
			return Location{}, errorf(ErrBadLocation, "location %q names host %q; a file:// location must be on this machine (file:///path)", raw, host)
		}
		rest = "/" + p
	}
	if !strings.HasPrefix(rest, "/") {
		return Location{}, errorf(ErrBadLocation, "location %q is relative; write file:///absolute/path", raw)
	}
	return fileLocation(raw, rest)
}

func fileLocation(raw, p string) (Location, error) {
	segs, err := segments(raw, p)
	if err != nil {
		return Location{}, err
	}
	return Location{scheme: SchemeFile, path: "/" + strings.Join(segs, "/")}, nil
}

func parseS3(raw, rest string) (Location, error) {
	after, ok := strings.CutPrefix(rest, "//")
	if !ok {
		return Location{}, errorf(ErrBadLocation, "location %q is not an S3 URI; write s3://bucket/key", raw)
	}
	bucket, key, _ := strings.Cut(after, "/")
	if !validS3Bucket(bucket) {
		return Location{}, errorf(ErrBadLocation, "location %q names S3 bucket %q; a bucket name is 3-63 lower-case letters, digits, '.' and '-'", raw, bucket)
	}
	segs, err := segments(raw, key)
	if err != nil {
		return Location{}, err
	}
	return Location{scheme: SchemeS3, bucket: bucket, path: strings.Join(segs, "/")}, nil
}

// segments splits a path on "/", dropping empty and "." segments and
// refusing "..".
func segments(raw, p string) ([]string, error) {
	var out []string
	for s := range strings.SplitSeq(p, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return nil, errorf(ErrBadLocation, "location %q contains a '..' segment; give the location without it", raw)
		}
		out = append(out, s)
	}
	return out, nil
}

func validS3Bucket(b string) bool {
	if len(b) < 3 || len(b) > 63 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// String is the canonical form stored in the catalog; "" for the zero Location.
func (l Location) String() string {
	switch l.scheme {
	case SchemeFile:
		return "file://" + l.path
	case SchemeS3:
		if l.path == "" {
			return "s3://" + l.bucket
		}
		return "s3://" + l.bucket + "/" + l.path
	}
	return ""
}

// IsZero reports whether l is the zero Location (no location).
func (l Location) IsZero() bool { return l.scheme == "" }

// Scheme is the store l lives in.
func (l Location) Scheme() Scheme { return l.scheme }

// Bucket is the S3 bucket ("" for file locations).
func (l Location) Bucket() string { return l.bucket }

// Path is the absolute local path of a file location ("/a/b") or the key
// prefix of an S3 location ("a/b", "" for the whole bucket).
func (l Location) Path() string { return l.path }

// Base is the last segment ("" for a root).
func (l Location) Base() string {
	return l.path[strings.LastIndexByte(l.path, '/')+1:]
}

// Join appends segments. Each part must be one safe segment: not empty, no
// '/', not "." or "..", no control characters.
func (l Location) Join(parts ...string) (Location, error) {
	if l.IsZero() {
		return Location{}, errorf(ErrBadLocation, "cannot join %q to an empty location", strings.Join(parts, "/"))
	}
	p := l.path
	for _, s := range parts {
		if err := checkSegment(s); err != nil {
			return Location{}, err
		}
		if p == "" || p == "/" {
			p += s
		} else {
			p += "/" + s
		}
	}
	if len(l.String())+len(p)-len(l.path) > maxLocationLen {
		return Location{}, errorf(ErrBadLocation, "location under %s would be longer than %d bytes", l, maxLocationLen)
	}
	return Location{scheme: l.scheme, bucket: l.bucket, path: p}, nil
}

// MustJoin is Join for parts the program itself spells (marker names,
// "_versions"); it panics on a bad segment, which is a bug, never input.
func (l Location) MustJoin(parts ...string) Location {
	j, err := l.Join(parts...)
	if err != nil {
		panic(err)
	}
	return j
}

func checkSegment(s string) error {
	switch {
	case s == "" || s == "." || s == "..":
		return errorf(ErrBadLocation, "path segment %q is not a name; use a non-empty name other than '.' and '..'", s)
	case strings.ContainsRune(s, '/'):
		return errorf(ErrBadLocation, "path segment %q contains '/'; give one name at a time", s)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return errorf(ErrBadLocation, "path segment %q contains a control character", s)
		}
	}
	return nil
}

// Within reports whether l is root itself or lies below it.
func (l Location) Within(root Location) bool {
	if l.IsZero() || l.scheme != root.scheme || l.bucket != root.bucket {
		return false
	}
	switch {
	case l.path == root.path:
		return true
	case root.path == "" || root.path == "/":
		return true // the whole bucket or the file-system root
	}
	return strings.HasPrefix(l.path, root.path) && l.path[len(root.path)] == '/'
}

// Overlaps reports whether l and o are equal or one lies inside the other:
// two tables may never overlap, since dropping one would delete the other's
// data.
func (l Location) Overlaps(o Location) bool { return l.Within(o) || o.Within(l) }

// Rel is the path of l below root ("" when equal), and false when l is not
// within root.
func (l Location) Rel(root Location) (string, bool) {
	if !l.Within(root) {
		return "", false
	}
	rel := strings.TrimPrefix(l.path, root.path)
	return strings.TrimPrefix(rel, "/"), true
}

// Ancestors lists the locations strictly above l, nearest last: for
// file:///a/b/c that is file:///, file:///a, file:///a/b. A table must not
// be placed below another table, and these are the places to look.
func (l Location) Ancestors() []Location {
	var out []Location
	if l.IsZero() {
		return nil
	}
	p := l.path
	for {
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			if p == "" {
				return reverse(out)
			}
			p = ""
		} else if i == 0 {
			if p == "/" {
				return reverse(out)
			}
			p = "/"
		} else {
			p = p[:i]
		}
		out = append(out, Location{scheme: l.scheme, bucket: l.bucket, path: p})
	}
}

func reverse(ls []Location) []Location {
	for i, j := 0, len(ls)-1; i < j; i, j = i+1, j-1 {
		ls[i], ls[j] = ls[j], ls[i]
	}
	return ls
}
