package handlers

import (
	"net/url"
	"strings"
	"unicode"
)

// maxNextLen bounds the post-login destination: every console path fits in a
// few hundred bytes, so a longer one is not a link we made.
const maxNextLen = 2048

// nextBase is a stand-in origin for resolving a destination: only a result on
// this same origin is kept, whatever the browser would make of the string.
var nextBase = &url.URL{Scheme: "https", Host: "floe.invalid", Path: "/"}

// safeNext keeps a post-login destination only when it is a path on this
// site, so the sign-in page cannot be used to bounce users elsewhere.
//
// Browsers drop TAB, CR and LF from URLs and read a backslash as a slash, so
// "/\tevil" or "/\\evil" become "//evil" — a different host. Refused, then:
// any control or space character, any backslash, and anything that does not
// parse to a bare path resolving to this same origin.
func safeNext(next string) string {
	if next == "" || len(next) > maxNextLen || next[0] != '/' {
		return ""
	}
	for _, r := range next {
		if r == '\\' || unicode.IsControl(r) || unicode.IsSpace(r) || r == unicode.ReplacementChar {
			return ""
		}
	}
	if strings.HasPrefix(next, "//") {
		return ""
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return ""
	}
	abs := nextBase.ResolveReference(u)
	if abs.Scheme != nextBase.Scheme || abs.Host != nextBase.Host || strings.HasPrefix(abs.EscapedPath(), "//") {
		return ""
	}
	return next
}
