package s3test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Proxy is a loopback reverse proxy in front of a Store that makes it a
// store without conditional writes: it removes If-None-Match and If-Match
// from writes, and the x-amz-copy-source-if-* conditions from copies, then
// signs the request again with the store's admin keys (the client signed
// the headers it sent, so stripping alone would break the signature). What
// a client writes through it replaces what is there, as on an S3-compatible
// store that ignores the conditions.
type Proxy struct {
	// Endpoint is http://127.0.0.1:PORT, for clients of the store.
	Endpoint string
	stripped atomic.Int64

	mu   sync.Mutex
	seen []string // "METHOD /path" of every request
}

// Stripped is how many requests lost a condition on the way through.
func (p *Proxy) Stripped() int64 { return p.stripped.Load() }

// Count is how many requests with the method had a path containing part:
// a test's proof that a client's writes went through the proxy.
func (p *Proxy) Count(method, part string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, s := range p.seen {
		m, path, _ := strings.Cut(s, " ")
		if m == method && strings.Contains(path, part) {
			n++
		}
	}
	return n
}

// strippedHeaders are the conditions a store without conditional writes
// never sees on a PUT or POST.
var strippedHeaders = []string{
	"If-None-Match", "If-Match",
	"X-Amz-Copy-Source-If-Match", "X-Amz-Copy-Source-If-None-Match",
	"X-Amz-Copy-Source-If-Modified-Since", "X-Amz-Copy-Source-If-Unmodified-Since",
}

// maxProxiedBody bounds an aws-chunked body the proxy decodes in memory.
const maxProxiedBody = 256 << 20

// NoConditionProxy starts a Proxy in front of s on 127.0.0.1 for the test.
func (s *Store) NoConditionProxy(t testing.TB) *Proxy {
	t.Helper()
	target, err := url.Parse(s.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Endpoint: "http://" + ln.Addr().String()}
	rt := &resigner{target: target, creds: aws.Credentials{AccessKeyID: s.AccessKey, SecretAccessKey: s.SecretKey},
		signer: v4.NewSigner(), next: http.DefaultTransport, stripped: &p.stripped}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			p.mu.Lock()
			p.seen = append(p.seen, pr.In.Method+" "+pr.In.URL.Path)
			p.mu.Unlock()
			pr.Out.URL.Scheme, pr.Out.URL.Host = target.Scheme, target.Host
			pr.Out.Host = pr.In.Host // the host the client signed
		},
		Transport: rt,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "s3test proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: time.Minute}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return p
}

// resigner strips the conditions and signs again; requests without a
// condition go through as the client signed them.
type resigner struct {
	target   *url.URL
	creds    aws.Credentials
	signer   *v4.Signer
	next     http.RoundTripper
	stripped *atomic.Int64
}

func (r *resigner) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPut && req.Method != http.MethodPost {
		return r.next.RoundTrip(req)
	}
	found := false
	for _, h := range strippedHeaders {
		if _, ok := req.Header[h]; ok {
			req.Header.Del(h)
			found = true
		}
	}
	if !found {
		return r.next.RoundTrip(req)
	}
	if req.URL.Query().Get("X-Amz-Signature") != "" {
		return nil, errors.New("a presigned request carries a condition; the proxy re-signs header-signed requests only")
	}
	if err := r.resign(req); err != nil {
		return nil, err
	}
	r.stripped.Add(1)
	return r.next.RoundTrip(req)
}

// resign signs req again for the store. The payload hash stays the one the
// client sent (a body's SHA-256, UNSIGNED-PAYLOAD, or the unsigned
// aws-chunked trailer form, whose body carries no signatures), except for
// an aws-chunked body with chunk signatures: those chain from the client's
// header signature, so the proxy decodes the body to plain bytes and signs
// their SHA-256 instead.
func (r *resigner) resign(req *http.Request) error {
	hash := req.Header.Get("X-Amz-Content-Sha256")
	if hash == "" {
		hash = "UNSIGNED-PAYLOAD"
	}
	if strings.HasPrefix(hash, "STREAMING-AWS4-HMAC-SHA256-PAYLOAD") {
		var err error
		if hash, err = plainBody(req); err != nil {
			return err
		}
	}
	req.Header.Set("X-Amz-Content-Sha256", hash)
	for _, h := range []string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token"} {
		req.Header.Del(h)
	}
	req.Host = r.target.Host
	return r.signer.SignHTTP(context.Background(), r.creds, req, hash, "s3", Region, time.Now(),
		func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
}

// plainBody replaces req's aws-chunked body (with chunk signatures) by the
// bytes it carries, moves its trailing checksums into headers, and answers
// the bytes' SHA-256 in hex.
func plainBody(req *http.Request) (string, error) {
	defer req.Body.Close()
	br := bufio.NewReader(io.LimitReader(req.Body, maxProxiedBody))
	var data bytes.Buffer
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("aws-chunked body: %w", err)
		}
		sizeHex, _, _ := strings.Cut(strings.TrimRight(line, "\r\n"), ";")
		size, err := strconv.ParseInt(sizeHex, 16, 64)
		if err != nil || size < 0 || int64(data.Len())+size > maxProxiedBody {
			return "", fmt.Errorf("aws-chunked body: bad chunk header %q", line)
		}
		if size == 0 {
			break
		}
		if _, err := io.CopyN(&data, br, size); err != nil {
			return "", fmt.Errorf("aws-chunked body: %w", err)
		}
		if _, err := br.Discard(2); err != nil { // the chunk's CRLF
			return "", fmt.Errorf("aws-chunked body: %w", err)
		}
	}
	for { // trailers, up to the empty line
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if name, value, ok := strings.Cut(line, ":"); ok && !strings.EqualFold(name, "x-amz-trailer-signature") {
			req.Header.Set(name, strings.TrimSpace(value))
		}
		if err != nil {
			break
		}
	}
	var enc []string
	for _, e := range strings.Split(req.Header.Get("Content-Encoding"), ",") {
		if e = strings.TrimSpace(e); e != "" && e != "aws-chunked" {
			enc = append(enc, e)
		}
	}
	req.Header.Del("Content-Encoding")
	if len(enc) > 0 {
		req.Header.Set("Content-Encoding", strings.Join(enc, ","))
	}
	req.Header.Del("X-Amz-Decoded-Content-Length")
	req.Header.Del("X-Amz-Trailer")
	req.Body = io.NopCloser(bytes.NewReader(data.Bytes()))
	req.ContentLength = int64(data.Len())
	sum := sha256.Sum256(data.Bytes())
	return hex.EncodeToString(sum[:]), nil
}
