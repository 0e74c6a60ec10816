package s3tables

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// Signature rules.
const (
	// signingName is the SigV4 service name every S3 Tables request is
	// signed for.
	signingName = "s3tables"
	// maxClockSkew is how far a request's X-Amz-Date may be from the
	// server's clock, AWS's own window: it bounds how long a captured
	// request can be replayed.
	maxClockSkew = 15 * time.Minute
	sigAlgorithm = "AWS4-HMAC-SHA256"
	amzDateFmt   = "20060102T150405Z"
)

// signer re-signs requests with the SDK's own SigV4 code, so the server and
// the SDKs cannot disagree on canonicalisation.
var signer = v4.NewSigner()

// sigV4Auth is a parsed Authorization header.
type sigV4Auth struct {
	accessKeyID, date, region, service string
	signedHeaders                      []string
	signature                          string
}

func parseAuthorization(h string) (sigV4Auth, error) {
	var a sigV4Auth
	rest, ok := strings.CutPrefix(h, sigAlgorithm+" ")
	if !ok {
		return a, forbidden("the request is not signed with " + sigAlgorithm + "; sign it with SigV4 using a floe API key's access key id and secret (floe token create prints them)")
	}
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			c := strings.Split(v, "/")
			if len(c) != 5 || c[4] != "aws4_request" {
				return a, forbidden("the Authorization header's Credential is not <access key id>/<date>/<region>/s3tables/aws4_request")
			}
			a.accessKeyID, a.date, a.region, a.service = c[0], c[1], c[2], c[3]
		case "SignedHeaders":
			a.signedHeaders = strings.Split(v, ";")
		case "Signature":
			a.signature = v
		}
	}
	if a.accessKeyID == "" || len(a.signedHeaders) == 0 || a.signature == "" {
		return a, forbidden("the Authorization header lacks Credential, SignedHeaders or Signature")
	}
	if a.service != signingName {
		return a, forbidden(fmt.Sprintf("the request is signed for service %q; S3 Tables requests are signed for %q", a.service, signingName))
	}
	return a, nil
}

// authenticate verifies the request's SigV4 signature and returns the API
// key that made it: the access key id names the key, the request time must
// be within maxClockSkew, the body must hash to what was signed, and the
// signature recomputed with the key's secret must match in constant time.
func (s *Server) authenticate(r *http.Request, body []byte) (catalog.APIKey, error) {
	a, err := parseAuthorization(r.Header.Get("Authorization"))
	if err != nil {
		return catalog.APIKey{}, err
	}
	amzDate := r.Header.Get("X-Amz-Date")
	at, err := time.Parse(amzDateFmt, amzDate)
	if err != nil {
		return catalog.APIKey{}, forbidden("the request has no valid X-Amz-Date header (form 20060102T150405Z)")
	}
	if !strings.HasPrefix(amzDate, a.date) {
		return catalog.APIKey{}, forbidden("the credential scope's date does not match X-Amz-Date")
	}
	now := s.cfg.Now()
	if skew := now.Sub(at); skew > maxClockSkew || skew < -maxClockSkew {
		return catalog.APIKey{}, forbidden(fmt.Sprintf("the request was signed at %s, more than %s from the server's clock (%s); correct the client's clock",
			at.Format(time.RFC3339), maxClockSkew, now.UTC().Format(time.RFC3339)))
	}
	if !containsAll(a.signedHeaders, "host", "x-amz-date") {
		return catalog.APIKey{}, forbidden("the signature must cover the host and x-amz-date headers")
	}
	sum := sha256.Sum256(body)
	payloadHash := hex.EncodeToString(sum[:])
	if h := r.Header.Get("X-Amz-Content-Sha256"); h != "" && h != payloadHash {
		return catalog.APIKey{}, forbidden("the body does not hash to X-Amz-Content-Sha256; unsigned payloads are not accepted")
	}
	key, err := s.cfg.Store.LookupAccessKey(r.Context(), a.accessKeyID)
	if errors.Is(err, fault.NotFound) {
		return catalog.APIKey{}, forbidden("access key id " + a.accessKeyID + " is unknown, revoked or expired; create a key with floe token create")
	}
	if err != nil {
		return catalog.APIKey{}, err
	}
	want, err := resign(r, a, key, payloadHash, at)
	if err != nil {
		return catalog.APIKey{}, err
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(a.signature)) != 1 {
		return catalog.APIKey{}, forbidden("the request signature does not match: check the secret access key, and that nothing rewrote the request on its way")
	}
	return key, nil
}

// resign builds the request the client signed — the same method, URL, host,
// signed headers and body hash — signs it with the stored secret and returns
// the signature.
func resign(r *http.Request, a sigV4Auth, key catalog.APIKey, payloadHash string, at time.Time) (string, error) {
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	c := &http.Request{Method: r.Method, URL: &u, Host: r.Host, Header: http.Header{}}
	for _, h := range a.signedHeaders {
		switch h {
		case "host":
		case "content-length":
			c.ContentLength = r.ContentLength
		default:
			if vs, ok := r.Header[http.CanonicalHeaderKey(h)]; ok {
				c.Header[http.CanonicalHeaderKey(h)] = vs
			}
		}
	}
	creds := aws.Credentials{AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey}
	if err := signer.SignHTTP(c.Context(), creds, c, payloadHash, signingName, a.region, at); err != nil {
		return "", fmt.Errorf("re-sign request: %w", err)
	}
	got, err := parseAuthorization(c.Header.Get("Authorization"))
	if err != nil {
		return "", fmt.Errorf("re-signed request: %w", err)
	}
	if strings.Join(got.signedHeaders, ";") != strings.Join(a.signedHeaders, ";") {
		return "", forbidden("the signed headers " + strings.Join(a.signedHeaders, ";") + " are not all present on the request")
	}
	return got.signature, nil
}

func containsAll(list []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, v := range list {
			if v == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
