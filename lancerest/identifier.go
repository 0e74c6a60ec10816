package lancerest

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// DefaultDelimiter joins identifier names in a URL when ?delimiter= is absent.
const DefaultDelimiter = "$"

// Caps on the identifier codec; the catalog's name rules are stricter, these
// only keep a hostile path from costing memory or time before they run.
const (
	maxIdentifierBytes = 4096 // 64 levels of 63-byte names with delimiters fit easily
	maxIdentifierParts = 64   // deeper than any real namespace tree
	maxDelimiterBytes  = 16   // a delimiter is a separator, not a sentence
)

// parseDelimiter returns the delimiter from the raw ?delimiter= value ("" means
// absent or empty: the default).
func parseDelimiter(raw string) (string, *Error) {
	if raw == "" {
		return DefaultDelimiter, nil
	}
	d, err := url.QueryUnescape(raw)
	if err != nil {
		return "", invalid("delimiter is not valid URL encoding", "Percent-encode the delimiter, e.g. ?delimiter=%24 for $.")
	}
	if d == "" {
		return DefaultDelimiter, nil
	}
	if len(d) > maxDelimiterBytes || !utf8.ValidString(d) || strings.ContainsRune(d, 0) {
		return "", invalid("delimiter is not usable", "A delimiter is 1-16 bytes of valid UTF-8 without NUL; the default is $.")
	}
	// In the path a + stands for a space and names may hold spaces, so a
	// delimiter with either would split names where the client meant none
	// (and ?delimiter=+ arrives as a space).
	if strings.ContainsAny(d, " +") {
		return "", invalid("delimiter is not usable", "A delimiter cannot contain a space or +: in the path a + stands for a space, and names may contain spaces. Use the default $ or another character, e.g. ?delimiter=%2E for a dot.")
	}
	return d, nil
}

// parseIdentifier splits the {id} path segment (still percent-encoded) into
// names. The segment is decoded as a form value, as the Lance Namespace
// clients encode it: LanceDB (and the spec's Java client) send a space as +
// and a + as %2B, the spec's Python client a space as %20; so a + in the
// segment is a space. The delimiter alone is the root and yields an empty,
// non-nil slice. Empty names are refused rather than merged.
func parseIdentifier(rawSegment, delim string) ([]string, *Error) {
	seg := rawSegment
	if strings.ContainsAny(seg, "%+") {
		var err error
		seg, err = url.QueryUnescape(rawSegment)
		if err != nil {
			return nil, invalid("identifier is not valid URL encoding", "Percent-encode each identifier in the path, e.g. %24 for $.")
		}
	}
	return splitIdentifier(seg, delim)
}

// idSegment is the {id} segment of an escaped path: every identifier route
// is /v1/<kind>/{id}/….
func idSegment(escapedPath string) string {
	rest := escapedPath
	for range 3 { // "", "v1", the kind
		_, after, ok := strings.Cut(rest, "/")
		if !ok {
			return ""
		}
		rest = after
	}
	seg, _, _ := strings.Cut(rest, "/")
	return seg
}

// splitIdentifier splits a decoded identifier string.
func splitIdentifier(s, delim string) ([]string, *Error) {
	if s == "" {
		return nil, invalid("identifier is empty", "Give the names joined by the delimiter, or the delimiter alone for the root.")
	}
	if len(s) > maxIdentifierBytes {
		return nil, invalid("identifier is too long", "An identifier is at most 4096 bytes.")
	}
	if s == delim {
		return []string{}, nil
	}
	n := strings.Count(s, delim) + 1
	if n > maxIdentifierParts {
		return nil, invalid("identifier has too many levels", "An identifier has at most 64 names.")
	}
	parts := make([]string, 0, n)
	for {
		i := strings.Index(s, delim)
		part := s
		if i >= 0 {
			part = s[:i]
		}
		if part == "" {
			return nil, invalid("identifier has an empty name", "Names between delimiters must not be empty (a$$b and a trailing $ are refused).")
		}
		if !utf8.ValidString(part) || strings.IndexByte(part, 0) >= 0 {
			return nil, invalid("identifier name is not valid text", "Names are UTF-8 without NUL.")
		}
		parts = append(parts, part)
		if i < 0 {
			return parts, nil
		}
		s = s[i+len(delim):]
	}
}

// joinIdentifier is the inverse of splitIdentifier for non-root ids.
func joinIdentifier(parts []string, delim string) string {
	if len(parts) == 0 {
		return delim
	}
	return strings.Join(parts, delim)
}

// sameID reports whether a body's id equals the path's.
func sameID(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
