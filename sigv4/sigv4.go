// Package sigv4 authenticates requests signed with AWS Signature Version 4
// by a floe API key's access key pair (the pair `floe token create`
// prints), for the surfaces that AWS tools call the AWS way: the S3 Tables
// control API, and the Iceberg REST catalog as engines configure it for
// AWS S3 Tables.
//
// A Verifier is the edge's authentication step (an edge.Authenticator). It
// works in the order that keeps an unauthenticated caller cheap:
//
//  1. parse the Authorization header and check what needs no secret —
//     algorithm, accepted service name, the configured region, the request
//     time within MaxClockSkew, that host and x-amz-date are signed;
//  2. look the key up by its access key id (an unknown, revoked or expired
//     id is refused here, before a byte of the body is read);
//  3. read the body, bounded by the surface's cap, and check it hashes to
//     X-Amz-Content-Sha256 when the client sent one;
//  4. re-sign the request with the AWS SDK's own v4 signer (the server and
//     the SDKs cannot disagree on canonicalisation, and no signing crypto
//     is written here) and compare the signatures in constant time;
//  5. put the body back, so the handler reads it as if nothing had.
//
// Presigned URLs (a signature in the query string) and unsigned or
// streamed payloads are not accepted.
//
// The Verifier sees the request, not its connection: the edge gives every
// body a read deadline before authentication (edge.DefaultBodyTimeout), so
// a known key cannot hold a connection open by trickling its body either.
package sigv4

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
)

// MaxClockSkew is how far a request's X-Amz-Date may be from the server's
// clock, AWS's own window: it bounds how long a captured request can be
// replayed.
const MaxClockSkew = 15 * time.Minute

// Keys finds the API key that owns an access key id, with its secret
// filled; *catalog.Store is one. An unknown, revoked or expired id is a
// fault.NotFound.
type Keys interface {
	LookupAccessKey(ctx context.Context, accessKeyID string) (catalog.APIKey, error)
}

// Config configures a Verifier. Every field but Now is required.
type Config struct {
	Keys Keys
	// Services are the signing names accepted in the credential scope
	// (S3 Tables: "s3tables"; the Iceberg REST: "s3tables" and "glue").
	Services []string
	// Region is the one region accepted in the credential scope
	// (--s3tables-region).
	Region string
	// MaxBody bounds the body read to hash it: the surface's own body cap.
	MaxBody int64
	// Now is the clock the skew window is measured on; nil is time.Now.
	Now func() time.Time
}

// Verifier checks SigV4 signatures; safe for concurrent use.
type Verifier struct {
	cfg    Config
	signer *v4.Signer
}

// New builds a Verifier; it panics on a Config without Keys, Services,
// Region or MaxBody, which is a wiring mistake, not a request's.
func New(cfg Config) *Verifier {
	if cfg.Keys == nil || len(cfg.Services) == 0 || cfg.Region == "" || cfg.MaxBody <= 0 {
		panic("sigv4: Config needs Keys, Services, Region and MaxBody")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Verifier{cfg: cfg, signer: v4.NewSigner()}
}

// Signed reports whether r carries a SigV4 Authorization header, so a
// surface that takes several credentials can pick this Verifier for it.
func Signed(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Authorization"), algorithm+" ")
}

// Authenticate verifies r's signature and answers the principal of the API
// key that signed it (Via "sigv4"). A refusal is a fault.Unauthenticated
// saying what to fix; a key store that cannot be asked is its own error
// (fault.Unavailable); a body over MaxBody is fault.TooLarge. On success
// r.Body holds the same bytes again for the handler.
func (v *Verifier) Authenticate(r *http.Request) (edge.Principal, error) {
	a, err := parseAuthorization(r.Header.Get("Authorization"))
	if err != nil {
		return edge.Principal{}, err
	}
	at, err := v.checkScope(r, a)
	if err != nil {
		return edge.Principal{}, err
	}
	key, err := v.cfg.Keys.LookupAccessKey(r.Context(), a.accessKeyID)
	if errors.Is(err, catalog.ErrKeyExpired) {
		return edge.Principal{}, refuse("access_key_id", "access key id %s: %s", a.accessKeyID, fault.Message(err, "the key expired"))
	}
	if errors.Is(err, fault.NotFound) {
		return edge.Principal{}, refuse("access_key_id", "access key id %s is unknown, revoked or expired; create a key with floe token create", a.accessKeyID)
	}
	if err != nil {
		return edge.Principal{}, err
	}
	who := edge.FromKey(key, "sigv4")
	who.Key.SecretAccessKey = "" // the principal travels to logs and handlers; the secret does not
	body, err := readBody(r, v.cfg.MaxBody)
	if err != nil {
		return who, err
	}
	sum := sha256.Sum256(body)
	payloadHash := hex.EncodeToString(sum[:])
	if h := r.Header.Get("X-Amz-Content-Sha256"); h != "" && h != payloadHash {
		return who, refuse("x-amz-content-sha256", "the body does not hash to X-Amz-Content-Sha256; sign the payload itself (unsigned and streamed payloads are not accepted)")
	}
	want, err := v.signature(r, a, key, payloadHash, at)
	if err != nil {
		return who, err
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(a.signature)) != 1 {
		return who, refuse("signature", "the request signature does not match: check the secret access key, and that nothing rewrote the request on its way")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return who, nil
}

// checkScope checks what needs no secret: service, region, the request
// time and the headers that must be signed. It answers the signing time.
func (v *Verifier) checkScope(r *http.Request, a authorization) (time.Time, error) {
	if !slices.Contains(v.cfg.Services, a.service) {
		return time.Time{}, refuse("service", "the request is signed for service %q; sign it for %s", a.service, strings.Join(quoteAll(v.cfg.Services), " or "))
	}
	if a.region != v.cfg.Region {
		return time.Time{}, refuse("region", "the request is signed for region %q; this floe serves region %q (floe serve --s3tables-region): configure the client with that region", a.region, v.cfg.Region)
	}
	amzDate := r.Header.Get("X-Amz-Date")
	at, err := time.Parse(amzDateLayout, amzDate)
	if err != nil {
		return time.Time{}, refuse("x-amz-date", "the request has no valid X-Amz-Date header (form 20060102T150405Z)")
	}
	if a.date != amzDate[:8] {
		return time.Time{}, refuse("credential", "the credential scope's date %q is not the date of X-Amz-Date %q", a.date, amzDate)
	}
	now := v.cfg.Now()
	if skew := now.Sub(at); skew > MaxClockSkew || skew < -MaxClockSkew {
		return time.Time{}, refuse("x-amz-date", "the request was signed at %s, more than %s from the server's clock (%s); correct the client's clock",
			at.Format(time.RFC3339), MaxClockSkew, now.UTC().Format(time.RFC3339))
	}
	if !slices.Contains(a.signedHeaders, "host") || !slices.Contains(a.signedHeaders, "x-amz-date") {
		return time.Time{}, refuse("signed_headers", "the signature must cover the host and x-amz-date headers")
	}
	return at, nil
}

// readBody reads the whole body, at most limit bytes (the edge has usually
// capped it already; this bound holds without the edge too).
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > limit {
		return nil, edge.BodyError(&http.MaxBytesError{Limit: limit})
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, edge.BodyError(err) // the edge's body deadline is said without the socket's addresses
	}
	if int64(len(b)) > limit {
		return nil, edge.BodyError(&http.MaxBytesError{Limit: limit})
	}
	return b, nil
}

// signature builds the request the client signed — method, URL, host, the
// signed headers and the body's hash, nothing else — signs it with the
// key's secret through the SDK's signer and answers the signature.
func (v *Verifier) signature(r *http.Request, a authorization, key catalog.APIKey, payloadHash string, at time.Time) (string, error) {
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	c := &http.Request{Method: r.Method, URL: &u, Host: r.Host, Header: make(http.Header, len(a.signedHeaders))}
	for _, h := range a.signedHeaders {
		switch h {
		case "host":
		case "content-length":
			c.ContentLength = r.ContentLength
		default:
			name := textproto.CanonicalMIMEHeaderKey(h)
			if vs, ok := r.Header[name]; ok {
				c.Header[name] = vs
			}
		}
	}
	creds := aws.Credentials{AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey}
	if err := v.signer.SignHTTP(context.Background(), creds, c, payloadHash, a.service, a.region, at); err != nil {
		return "", fmt.Errorf("sigv4: re-sign the request: %w", err)
	}
	got, err := parseAuthorization(c.Header.Get("Authorization"))
	if err != nil {
		return "", fmt.Errorf("sigv4: the SDK's own signature does not parse: %w", err)
	}
	if !slices.Equal(got.signedHeaders, a.signedHeaders) {
		return "", refuse("signed_headers", "the signed headers %s are not all on the request (or name one that is never signed)", strings.Join(a.signedHeaders, ";"))
	}
	return got.signature, nil
}

func refuse(field, format string, args ...any) error {
	return fault.New(fault.Unauthenticated, field, format, args...)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
