package s3tables_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/s3tables"
)

// syncBuffer is a log sink the server writes from its goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rawDo sends req (signed or not) and reads the S3 Tables answer.
func rawDo(t *testing.T, req *http.Request) (rawResponse, http.Header) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := rawResponse{status: resp.StatusCode, errType: resp.Header.Get("X-Amzn-Errortype")}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out.body); err != nil {
			t.Fatalf("%s %s: body is not JSON: %q", req.Method, req.URL, b)
		}
	}
	return out, resp.Header
}

// signedRequest is a request signed like the SDK signs one.
func (e *testEnv) signedRequest(t *testing.T, key catalog.APIKey, method, path string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	signRequest(t, req, key, body, testRegion)
	return req
}

// TestEdge is the surface on the edge (#21): request ids echoed and
// logged, the protocol's own 404, 405 and 413, a panic answered as the
// protocol's 500 with the request id, and a series per route.
func TestEdge(t *testing.T) {
	log := &syncBuffer{}
	reg := prometheus.NewRegistry()
	e := newTestEnv(t, func(c *s3tables.Config) {
		c.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.Metrics = edge.NewMetrics(reg)
	})
	e.s3t.HandlePanicForTest("GET /panic-for-test")

	t.Run("a client's request id is answered and logged", func(t *testing.T) {
		req := e.signedRequest(t, e.ro, "GET", "/buckets", nil)
		req.Header.Set("X-Request-Id", "trace-s3t-42")
		r, h := rawDo(t, req)
		if r.status != 200 || h.Get("X-Request-Id") != "trace-s3t-42" || h.Get("X-Amzn-Requestid") != "trace-s3t-42" {
			t.Fatalf("status %d, X-Request-Id %q, x-amzn-RequestId %q", r.status, h.Get("X-Request-Id"), h.Get("X-Amzn-Requestid"))
		}
		if !strings.Contains(log.String(), "request_id=trace-s3t-42") || !strings.Contains(log.String(), "surface=s3tables") {
			t.Fatalf("the access log lacks the request id:\n%s", log)
		}
		// The SDK reads the id from x-amzn-RequestId into its errors.
		_, err := e.client(e.ro).GetTableBucket(ctxT(t), &sdk.GetTableBucketInput{TableBucketARN: aws.String(arnPrefix + "bucket/nope")})
		if err == nil || !strings.Contains(err.Error(), "RequestID: ") || strings.Contains(err.Error(), "RequestID: ,") {
			t.Fatalf("the SDK saw no request id: %v", err)
		}
	})
	t.Run("an unknown route is NotFoundException", func(t *testing.T) {
		req, _ := http.NewRequest("GET", e.srv.URL+"/no/such/operation", nil)
		r, _ := rawDo(t, req)
		if msg, _ := r.body["message"].(string); r.status != 404 || r.errType != "NotFoundException" || !strings.Contains(msg, "not an S3 Tables operation") {
			t.Fatalf("got %d %s %v", r.status, r.errType, r.body)
		}
	})
	t.Run("a wrong method is 405 with Allow", func(t *testing.T) {
		req, _ := http.NewRequest("PATCH", e.srv.URL+"/buckets", nil)
		r, h := rawDo(t, req)
		allow := h.Get("Allow")
		if r.status != 405 || r.errType != "MethodNotAllowedException" || !strings.Contains(allow, "GET") || !strings.Contains(allow, "PUT") {
			t.Fatalf("got %d %s %v Allow=%q", r.status, r.errType, r.body, allow)
		}
	})
	t.Run("an oversized body is 413", func(t *testing.T) {
		big := bytes.Repeat([]byte(" "), 2<<20)
		for _, chunked := range []bool{false, true} {
			req := e.signedRequest(t, e.rw, "PUT", "/buckets", big)
			if chunked {
				req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(big)), -1
			}
			r, _ := rawDo(t, req)
			if msg, _ := r.body["message"].(string); r.status != 413 || r.errType != "BadRequestException" || !strings.Contains(msg, "larger than") {
				t.Fatalf("chunked=%v: got %d %s %v", chunked, r.status, r.errType, r.body)
			}
		}
	})
	t.Run("a panic is a 500 with the request id, and the server lives", func(t *testing.T) {
		req := e.signedRequest(t, e.ro, "GET", "/panic-for-test", nil)
		req.Header.Set("X-Request-Id", "panic-7")
		r, _ := rawDo(t, req)
		msg, _ := r.body["message"].(string)
		if r.status != 500 || r.errType != "InternalServerErrorException" || !strings.Contains(msg, "panic-7") || strings.Contains(msg, "boom") || strings.Contains(msg, "/var/lib") {
			t.Fatalf("got %d %s %q", r.status, r.errType, msg)
		}
		if !strings.Contains(log.String(), "handler panicked") {
			t.Fatalf("the panic was not logged:\n%s", log)
		}
		if r, _ := rawDo(t, e.signedRequest(t, e.ro, "GET", "/buckets", nil)); r.status != 200 {
			t.Fatalf("after the panic: %d", r.status)
		}
	})
	t.Run("each route has a series", func(t *testing.T) {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		for _, mf := range mfs {
			expfmt.MetricFamilyToText(&buf, mf)
		}
		for _, want := range []string{
			`floe_http_requests_total{route="GET /buckets",status="200",surface="s3tables"}`,
			`floe_http_requests_total{route="unmatched",status="404",surface="s3tables"}`,
			`floe_http_requests_total{route="GET /buckets/{tableBucketARN}",status="404",surface="s3tables"}`,
		} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("metrics lack %s:\n%s", want, buf.String())
			}
		}
	})
}

// TestRegionChecked is #23 item 6: a request signed for another region
// than --s3tables-region is refused, typed as the SDK knows it.
func TestRegionChecked(t *testing.T) {
	e := newTestEnv(t)
	for _, region := range []string{"eu-west-1", "xx-nowhere-9", "us-east-1"} {
		t.Run(region, func(t *testing.T) {
			_, err := e.client(e.rw, func(o *sdk.Options) { o.Region = region }).ListTableBuckets(ctxT(t), &sdk.ListTableBucketsInput{})
			var fe *types.ForbiddenException
			if !errors.As(err, &fe) || !strings.Contains(aws.ToString(fe.Message), "--s3tables-region") {
				t.Fatalf("err = %v, want ForbiddenException naming the region", err)
			}
		})
	}
	// Regions the SDK's client will not sign with, signed by hand.
	for _, region := range []string{"*", ""} {
		req, _ := http.NewRequest("GET", e.srv.URL+"/buckets", nil)
		signRequest(t, req, e.rw, nil, region)
		if r, _ := rawDo(t, req); r.status != 403 || r.errType != "ForbiddenException" {
			t.Fatalf("region %q: %d %s %v", region, r.status, r.errType, r.body)
		}
	}
	if _, err := e.client(e.rw).ListTableBuckets(ctxT(t), &sdk.ListTableBucketsInput{}); err != nil {
		t.Fatalf("the configured region: %v", err)
	}
}

// countingListener counts what the server reads off its connections.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.n}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// offerBody writes req's head and then up to limit bytes of chunked body
// on a raw connection, and reads the answer: what a hostile client does
// with a body it never means to finish.
func offerBody(t *testing.T, addr string, req *http.Request, limit int64, pause time.Duration) (*http.Response, int64) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(60 * time.Second)) // the test's own bound, never reached when the server behaves
	head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\n", req.Method, req.URL.RequestURI(), req.Host)
	for k, vs := range req.Header {
		head += k + ": " + vs[0] + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
		t.Fatal(err)
	}
	written := make(chan int64, 1)
	go func() {
		const size = 64 << 10
		chunk := fmt.Sprintf("%x\r\n%s\r\n", size, bytes.Repeat([]byte("x"), size))
		if pause > 0 {
			chunk = "1\r\nx\r\n"
		}
		var n int64
		for n < limit {
			if _, err := io.WriteString(conn, chunk); err != nil {
				break
			}
			n += int64(len(chunk))
			if pause > 0 {
				time.Sleep(pause)
			}
		}
		written <- n
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	conn.Close()
	return resp, <-written
}

// TestUnknownKeyBodyNeverRead is #23 item 2(a): an unknown access key with
// a huge body is refused after the request head, its body unread; the
// server reads at most its read-ahead and net/http's bounded drain of an
// unread body (256 KiB), far below the 1 MiB cap the old code read first.
// A known key's body that trickles is cut off by the body deadline.
func TestUnknownKeyBodyNeverRead(t *testing.T) {
	e := newTestEnv(t)
	e.s3t.SetBodyTimeoutForTest(300 * time.Millisecond)
	var read atomic.Int64
	srv := httptest.NewUnstartedServer(e.s3t.Handler())
	srv.Listener = countingListener{srv.Listener, &read}
	srv.Start()
	t.Cleanup(srv.Close)
	e.srv = srv
	unknown := e.rw
	unknown.AccessKeyID = "FLOECCCCCCCCCCCCCCCC"

	req := e.signedRequest(t, unknown, "PUT", "/buckets", []byte(`{"name":"never"}`))
	resp, offered := offerBody(t, srv.Listener.Addr().String(), req, 32<<20, 0)
	srv.CloseClientConnections()
	const bound = 768 << 10
	if resp.StatusCode != 403 || resp.Header.Get("X-Amzn-Errortype") != "ForbiddenException" {
		t.Fatalf("unknown key: %s %s", resp.Status, resp.Header.Get("X-Amzn-Errortype"))
	}
	if got := read.Load(); got > bound {
		t.Fatalf("the server read %d bytes (of %d offered) for an unknown key, want at most %d", got, offered, bound)
	}
	t.Logf("unknown key: the server read %d bytes of a body the client kept offering (%d written)", read.Load(), offered)

	// A known key trickling its body one byte at a time is cut off.
	req = e.signedRequest(t, e.rw, "PUT", "/buckets", []byte(`{"name":"slow"}`))
	resp, offered = offerBody(t, srv.Listener.Addr().String(), req, 1<<20, 20*time.Millisecond)
	if resp.StatusCode != 400 || resp.Header.Get("X-Amzn-Errortype") != "BadRequestException" {
		t.Fatalf("a trickled body: %s %s (%d bytes written)", resp.Status, resp.Header.Get("X-Amzn-Errortype"), offered)
	}
	t.Logf("trickle: answered %s after %d bytes", resp.Status, offered)
	if _, err := e.store.GetBucket(context.Background(), "slow"); err == nil {
		t.Fatal("the trickled request created its bucket")
	}
}
