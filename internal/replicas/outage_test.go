package replicas_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/smithy-go"
	awshttp "github.com/aws/smithy-go/transport/http"
	"github.com/floe/floe/internal/replicas"
	"github.com/floe/floe/persist/pgtest"
)

// TestDatabaseDownEverySurface503: while PostgreSQL is stopped, /readyz and
// every surface — console, Lance REST, task API, Iceberg REST, S3 Tables —
// answer 503 with a sentence that names no internal address or driver
// cause; after the restart the same requests succeed again.
func TestDatabaseDownEverySurface503(t *testing.T) {
	c := replicas.Start(t, replicas.Options{N: 1})
	r := c.Replicas[0]
	for _, p := range []string{"/v1/namespace/rb1/create", "/v1/namespace/rb1$ns/create", "/v1/table/rb1$ns$t1/declare"} {
		if got := call(t, c, "POST", r.Lance+p, `{}`); got.status != 200 {
			t.Fatalf("%s: %d %s", p, got.status, got.body)
		}
	}
	ck := login(t, r)
	s3 := sdk.New(sdk.Options{Region: "us-east-1", BaseEndpoint: aws.String(r.S3Tables), RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey}, nil
		})})

	type probe struct {
		name string
		req  func() (int, string)
	}
	// A key no surface has seen yet: its check must reach the database.
	out, err := c.CLI("token", "create", "--role", "readonly", "--name", "uncached")
	if err != nil {
		t.Fatalf("token create: %v %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	uncached := strings.TrimSpace(lines[len(lines)-1])
	keyed := func(key, method, url, host string) func() (int, string) {
		return func() (int, string) {
			req, _ := http.NewRequest(method, url, nil)
			if host != "" {
				req.Host = host
			}
			req.Header.Set("x-api-key", key)
			got := do(t, http.DefaultClient, req)
			return got.status, got.body
		}
	}
	httpProbe := func(method, url, host string, cookie bool) func() (int, string) {
		return func() (int, string) {
			req, _ := http.NewRequest(method, url, nil)
			if host != "" {
				req.Host = host
			}
			req.Header.Set("x-api-key", c.APIKey)
			if cookie {
				req.AddCookie(ck)
			}
			client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			got := do(t, client, req)
			return got.status, got.body
		}
	}
	probes := []probe{
		{"readyz", httpProbe("GET", r.Console+"/readyz", "", false)},
		{"console page", httpProbe("GET", r.Console+"/buckets", "", true)},
		{"lance rest", httpProbe("GET", r.Lance+"/v1/namespace/rb1/list", "", false)},
		{"task api", httpProbe("GET", r.Lance+"/lance/oss/v1/table/ns$t1/tasks", "rb1.localhost", false)},
		{"iceberg rest", httpProbe("GET", r.Iceberg+"/v1/rb1/namespaces", "", false)},
		{"lance rest, uncached key", keyed(uncached, "GET", r.Lance+"/v1/namespace/rb1/list", "")},
		{"task api, uncached key", keyed(uncached, "GET", r.Lance+"/lance/oss/v1/table/ns$t1/tasks", "rb1.localhost")},
		{"iceberg rest, uncached key", keyed(uncached, "GET", r.Iceberg+"/v1/rb1/namespaces", "")},
		{"s3 tables", func() (int, string) {
			_, err := s3.ListTableBuckets(context.Background(), &sdk.ListTableBucketsInput{})
			if err == nil {
				return 200, ""
			}
			var re *awshttp.ResponseError
			var ae smithy.APIError
			msg := err.Error()
			if errors.As(err, &ae) {
				msg = ae.ErrorMessage()
			}
			if errors.As(err, &re) {
				return re.HTTPStatusCode(), msg
			}
			return 0, msg
		}},
	}
	for _, p := range probes {
		if strings.Contains(p.name, "uncached") {
			continue // its first check must happen during the outage
		}
		if status, body := p.req(); status >= 500 || status == 0 {
			t.Fatalf("%s before the outage: %d %s", p.name, status, body)
		}
	}

	pgtest.Restart(t, func() {
		for _, p := range probes {
			t.Run("down/"+p.name, func(t *testing.T) {
				status, body := p.req()
				if status != http.StatusServiceUnavailable {
					t.Fatalf("%d %s, want 503", status, body)
				}
				if len(strings.Fields(body)) < 3 {
					t.Fatalf("503 without a sentence: %q", body)
				}
				for _, leak := range []string{"127.0.0.1", "dial tcp", "dial unix", ".s.PGSQL", "connection refused", "SQLSTATE", "pgx", "postgres://"} {
					if strings.Contains(body, leak) {
						t.Fatalf("503 body names an internal cause (%q): %s", leak, body)
					}
				}
			})
		}
	})
	for _, p := range probes {
		eventually(t, time.Minute, p.name+" back after the restart", func() (bool, string) {
			status, body := p.req()
			return status < 500 && status != 0, body
		})
	}
}
