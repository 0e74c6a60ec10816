package s3tables

import (
	"encoding/base64"
	"strings"
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
	b, err := base64.RawURLEncoding.DecodeString(t)
	if err != nil || !strings.HasPrefix(string(b), tokenVersion) {
		return "", badRequest("continuationToken", "continuationToken is not one this server issued; start the listing again without it")
	}
	return strings.TrimPrefix(string(b), tokenVersion), nil
}

// beforePrefix is a string that sorts just below every name starting with
// prefix and above every smaller name (names are [a-z0-9_-]), so a listing
// with a prefix can start at the prefix instead of the beginning.
func beforePrefix(prefix string) string {
	if prefix == "" {
		return ""
	}
	last := prefix[len(prefix)-1]
	return prefix[:len(prefix)-1] + string(last-1) + "\x7f"
}
