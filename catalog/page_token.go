package catalog

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Page tokens are what a listing hands a client for its next page: the
// listing's cursor (the last name of the page) in an opaque, versioned
// form, so a token the server did not issue is told apart and refused
// instead of silently starting the listing somewhere (or over).
const (
	pageTokenPrefix = "p1."
	// MaxPageTokenBytes bounds a token: a cursor is a name, at most a few
	// hundred bytes even for a deep namespace; 100 KB of A is not one.
	MaxPageTokenBytes = 4096
)

// PageToken is the token for a listing's next page; "" for the last page.
func PageToken(next string) string {
	if next == "" {
		return ""
	}
	return pageTokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(next))
}

// ParsePageToken reads a token PageToken made and returns its cursor; ""
// is the first page. Anything else is fault.Invalid with a sentence, which
// every surface answers as a bad request.
func ParsePageToken(tok string) (string, error) {
	if tok == "" {
		return "", nil
	}
	bad := Invalid("page_token", "the page token is not one this server issued; pass the token a listing returned unchanged, or leave it out for the first page")
	rest, ok := strings.CutPrefix(tok, pageTokenPrefix)
	if !ok || len(tok) > MaxPageTokenBytes {
		return "", bad
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	// The decoder skips newlines and ignores stray low bits; a token is
	// ours only if it is exactly the one PageToken issues for its cursor.
	if err != nil || len(b) == 0 || !cursorName(b) || PageToken(string(b)) != tok {
		return "", bad
	}
	return string(b), nil
}

// cursorName reports whether b could be a listing's cursor: bucket,
// namespace (levels joined by .), table and view names are UTF-8 text
// without control characters (see NameRule).
func cursorName(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}
