package taskapi

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/jsonstrict"
)

// Caps on what a request may carry.
const (
	// maxBodyBytes: task bodies are a handful of options; 64 KiB holds a
	// long index_names list with room to spare.
	maxBodyBytes = 64 << 10
	// maxDelimiterBytes: a delimiter is a separator, not a sentence.
	maxDelimiterBytes = 16
	// defaultDelimiter joins namespace and table when ?delimiter= is absent.
	defaultDelimiter = "$"
)

// request is what every operation has checked before it runs.
type request struct {
	bucket string
	table  catalog.Table
	query  url.Values
	body   []byte
}

// prepare runs the checks every operation shares, in order: the Host names
// a bucket, the caller may act on it, the query and {id} are well formed,
// Content-MD5 matches, the bucket exists and the table exists as LANCE.
func (h *handler) prepare(r *http.Request, o op) (*request, *apiError) {
	bucket, e := bucketFromHost(r.Host)
	if e != nil {
		return nil, e
	}
	edge.Describe(r.Context(), identity.Resource{Bucket: bucket})
	rights, e := h.rights(r, bucket)
	if e != nil {
		return nil, e
	}
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, invalid("the query string is not valid URL encoding")
	}
	delim, e := parseDelimiter(query.Get("delimiter"))
	if e != nil {
		return nil, e
	}
	ns, name, e := parseID(r.PathValue("id"), delim)
	if e != nil {
		return nil, e
	}
	edge.Describe(r.Context(), identity.Resource{Bucket: bucket, Namespace: []string{ns}, Table: name})
	// Submitting and deleting tasks is maintenance; reading them, reading.
	need := identity.Read
	if o.write {
		need = identity.Maintain
	}
	if err := rights.Decide(need, identity.Resource{Bucket: bucket, Namespace: []string{ns}, Table: name}); err != nil {
		return nil, refused(err)
	}
	body, e := readBody(r)
	if e != nil {
		return nil, e
	}
	if _, err := h.store.GetBucket(r.Context(), bucket); err != nil {
		if errors.Is(err, fault.NotFound) || errors.Is(err, fault.Invalid) {
			return nil, tableNotFound("bucket " + bucket + " does not exist; create it first, or check the Host header (the bucket is its first label)")
		}
		return nil, fromService(err) // 503 while the database is away, else internal
	}
	t, err := h.store.GetTable(r.Context(), catalog.TableRef{Bucket: bucket, Namespace: []string{ns}, Name: name})
	switch {
	case errors.Is(err, fault.NotFound) || err == nil && t.State == catalog.StateDeregistered:
		return nil, tableNotFound("table " + ns + delim + name + " does not exist in bucket " + bucket)
	case err != nil:
		return nil, fromService(err)
	case t.Format != catalog.FormatLance:
		return nil, invalid("table " + ns + delim + name + " is a " + string(t.Format) + " table; maintenance tasks run on LANCE tables only")
	}
	return &request{bucket: bucket, table: t, query: query, body: body}, nil
}

// bucketFromHost takes the bucket from the Host's first DNS label, ignoring
// the port. An IP or a single-label host (localhost) names no bucket.
func bucketFromHost(hostport string) (string, *apiError) {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	label, _, dotted := strings.Cut(host, ".")
	if !dotted || label == "" || net.ParseIP(host) != nil || net.ParseIP(strings.Trim(host, "[]")) != nil {
		return "", invalid("a bucket host is required, e.g. mybucket.localhost: the bucket is the first label of the Host header (got " + quoteHost(hostport) + ")")
	}
	return label, nil
}

func quoteHost(h string) string {
	if h == "" {
		return "no Host"
	}
	return `"` + h + `"`
}

// parseDelimiter applies the ?delimiter= rules: absent or empty means $;
// several characters are fine; /, : and - are refused (they appear in paths,
// hosts and names).
func parseDelimiter(d string) (string, *apiError) {
	if d == "" {
		return defaultDelimiter, nil
	}
	if strings.ContainsAny(d, "/:-") {
		return "", invalid("delimiter must not contain '/', ':' or '-'; omit it to use $")
	}
	if len(d) > maxDelimiterBytes {
		return "", invalid("delimiter is at most 16 bytes; omit it to use $")
	}
	return d, nil
}

// parseID splits {id} (ServeMux hands it over URL-decoded, a %24 or %2F
// inside it kept in the one segment) into exactly a namespace and a table,
// both non-empty.
func parseID(id, delim string) (string, string, *apiError) {
	parts := strings.Split(id, delim)
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", invalid("the table id must be namespace" + delim + "table: exactly one namespace and one table name, both non-empty (got " + `"` + id + `")`)
	}
	return parts[0], parts[1], nil
}

// readBody reads the body up to maxBodyBytes and checks Content-MD5 when the
// request carries one.
func readBody(r *http.Request) ([]byte, *apiError) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		if errors.As(err, new(*http.MaxBytesError)) || len(b) > maxBodyBytes {
			return nil, bodyTooLarge()
		}
		if edge.IsBodyTimeout(err) {
			return nil, invalid("the request body did not arrive in time; send it whole, without pauses")
		}
		if err != nil {
			return nil, invalid("the request body could not be read")
		}
		body = b
	}
	// encoding/json turns invalid UTF-8 into U+FFFD without a word, and a
	// field the task ignores is never even decoded: refuse it anywhere.
	if !utf8.Valid(body) {
		return nil, invalid("the request body is not valid UTF-8; JSON is UTF-8 text")
	}
	if err := jsonstrict.Check(body); err != nil {
		return nil, invalid("the request body is refused: " + err.Error())
	}
	if vals, ok := r.Header["Content-Md5"]; ok {
		want, err := base64.StdEncoding.DecodeString(strings.TrimSpace(vals[0]))
		sum := md5.Sum(body)
		if err != nil || len(want) != md5.Size || !bytes.Equal(want, sum[:]) {
			return nil, invalid("Content-MD5 does not match the body: send the base64 of the body's MD5 digest, or leave the header out")
		}
	}
	return body, nil
}
