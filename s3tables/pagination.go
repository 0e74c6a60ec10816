package s3tables

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/floe/floe/catalog"
)

// Page sizes: S3 Tables allows 1–1000 per page and defaults to the maximum.
const (
	minPage = 1
	maxPage = 1000
)

// Continuation tokens are opaque to clients: the catalog's own cursor,
// base64url-encoded with a version prefix so a future format can be told
// apart.
const tokenVersion = "v1:"

func encodeToken(cursor string) *string {
	if cursor == "" {
		return nil
	}
	t := base64.RawURLEncoding.EncodeToString([]byte(tokenVersion + cursor))
	return &t
}

func decodeToken(t string) (string, error) {
	if t == "" {
		return "", nil
	}
	bad := badRequest("continuationToken", "continuationToken is not one this server issued; start the listing again without it")
	if len(t) > catalog.MaxPageTokenBytes {
		return "", bad
	}
	b, err := base64.RawURLEncoding.DecodeString(t)
	if err != nil || !strings.HasPrefix(string(b), tokenVersion) {
		return "", bad
	}
	cursor := strings.TrimPrefix(string(b), tokenVersion)
	// The decoder skips newlines and ignores stray low bits: a token is ours
	// only if it is exactly the one encodeToken issues for its cursor.
	if !issuedCursor(cursor) || *encodeToken(cursor) != t {
		return "", bad
	}
	return cursor, nil
}

// issuedCursor reports whether c could be a cursor this server put in a
// token: a name (UTF-8 text without control characters, namespaces joined
// by .; see catalog.NameRule) or the catalog's own base64url cursor of a
// listing across namespaces.
func issuedCursor(c string) bool {
	if c == "" || !utf8.ValidString(c) {
		return false
	}
	for i := 0; i < len(c); i++ {
		if ch := c[i]; ch < 0x20 || ch == 0x7f {
			return false
		}
	}
	return true
}

// beforePrefix is a string that sorts below every name starting with
// prefix (its last byte is one less), so a listing with a prefix can start
// near the prefix instead of the beginning; the prefix still filters what
// follows.
func beforePrefix(prefix string) string {
	if prefix == "" {
		return ""
	}
	last := prefix[len(prefix)-1]
	return prefix[:len(prefix)-1] + string(last-1) + "\x7f"
}
