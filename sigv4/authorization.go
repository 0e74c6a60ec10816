package sigv4

import (
	"strings"
)

const (
	algorithm     = "AWS4-HMAC-SHA256"
	amzDateLayout = "20060102T150405Z"
)

// Bounds on what the header parser accepts; real SDK headers are a few
// hundred bytes with a handful of signed headers.
const (
	// maxAuthorization bounds the Authorization header parsed (the
	// server's header limit is far larger).
	maxAuthorization = 4096
	// maxSignedHeaders bounds SignedHeaders, so a client cannot make the
	// server copy and sort thousands of names.
	maxSignedHeaders = 64
)

// authorization is a parsed SigV4 Authorization header.
type authorization struct {
	accessKeyID, date, region, service string
	signedHeaders                      []string
	signature                          string
}

// parseAuthorization reads
//
//	AWS4-HMAC-SHA256 Credential=<id>/<yyyymmdd>/<region>/<service>/aws4_request, SignedHeaders=a;b, Signature=<hex>
//
// and refuses anything else with a sentence.
func parseAuthorization(h string) (authorization, error) {
	var a authorization
	if len(h) > maxAuthorization {
		return a, refuse("authorization", "the Authorization header is longer than %d bytes", maxAuthorization)
	}
	rest, ok := strings.CutPrefix(h, algorithm+" ")
	if !ok {
		return a, refuse("authorization", "the request is not signed with %s; sign it with SigV4 using a floe API key's access key id and secret (floe token create prints them)", algorithm)
	}
	var seen [3]bool
	for part := range strings.SplitSeq(rest, ",") {
		k, val, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			c := strings.Split(val, "/")
			if len(c) != 5 || c[0] == "" || len(c[1]) != 8 || c[4] != "aws4_request" {
				return a, refuse("credential", "the Authorization header's Credential is not <access key id>/<yyyymmdd>/<region>/<service>/aws4_request")
			}
			a.accessKeyID, a.date, a.region, a.service = c[0], c[1], c[2], c[3]
			seen[0] = true
		case "SignedHeaders":
			if strings.Count(val, ";") >= maxSignedHeaders {
				return a, refuse("signed_headers", "the request signs more than %d headers", maxSignedHeaders)
			}
			a.signedHeaders = strings.Split(val, ";")
			seen[1] = val != ""
		case "Signature":
			a.signature = val
			seen[2] = val != ""
		}
	}
	if !seen[0] || !seen[1] || !seen[2] {
		return a, refuse("authorization", "the Authorization header lacks Credential, SignedHeaders or Signature")
	}
	return a, nil
}
