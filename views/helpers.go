package views

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// BucketURL and friends build console URLs; every segment is path-escaped.
func BucketURL(b string) string { return "/buckets/" + url.PathEscape(b) }

// NamespaceURL is /buckets/{b}/namespaces/{ns} with ns dotted.
func NamespaceURL(b, ns string) string {
	return BucketURL(b) + "/namespaces/" + url.PathEscape(ns)
}

// TableURL is the table page.
func TableURL(b, ns, t string) string {
	return NamespaceURL(b, ns) + "/tables/" + url.PathEscape(t)
}

func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// whenSecond is when to the second: a key's expiry, which may be seconds
// away, and the moment every surface starts refusing it.
func whenSecond(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func whenISO(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func formatLabel(f string) string {
	switch f {
	case "LANCE":
		return "Lance"
	case "ICEBERG":
		return "Iceberg"
	}
	return "unset"
}

func formatClass(f string) string {
	switch f {
	case "LANCE":
		return "badge lance"
	case "ICEBERG":
		return "badge iceberg"
	}
	return "badge unset"
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func indent(depth int) string { return strings.Repeat("· ", depth) }

func navCurrent(p Page, item string) string {
	if p.Nav == item {
		return "page"
	}
	return "false"
}

// htmxConfig keeps htmx from injecting its indicator <style> (blocked by the
// CSP) and lets 4xx responses swap, so a form fragment re-rendered with 422 or
// 409 shows its message next to the field.
const htmxConfig = `{"includeIndicatorStyles":false,"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"4..","swap":true,"error":false},{"code":"...","swap":false,"error":true}]}`

func itoa(n int) string { return strconv.Itoa(n) }

func invalid(errs FieldErrors, field string) string {
	if _, ok := errs[field]; ok {
		return "true"
	}
	return "false"
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// sentenceCase starts a message with a capital and ends it with a stop; the
// catalog's rules read as clauses ("bucket name must be 3–63 characters").
func sentenceCase(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	// A sentence that starts with a parameter's name (index_type ...) keeps
	// it as the API spells it.
	if first, _, _ := strings.Cut(s, " "); !strings.Contains(first, "_") {
		r, n := utf8.DecodeRuneInString(s)
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

func queryEscape(s string) string { return url.QueryEscape(s) }

func pathEscape(s string) string { return url.PathEscape(s) }
