package icebergrest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// etagOf names one version of a table's metadata. Every commit writes a new
// metadata file (never rewritten), so its location identifies the content;
// the query is part of it because it may shape the answer (snapshots=refs).
func etagOf(metadataLocation, query string) string {
	sum := sha256.Sum256([]byte(metadataLocation + "\x00" + query))
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// notModified reports whether the request's If-None-Match names etag
// (RFC 9110 §13.1.2: a list of tags, weak ones compared weakly, or "*").
func notModified(r *http.Request, etag string) bool {
	for _, h := range r.Header.Values("If-None-Match") {
		for tag := range strings.SplitSeq(h, ",") {
			tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
			if tag == "*" || tag == etag {
				return true
			}
		}
	}
	return false
}
