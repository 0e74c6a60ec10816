package s3tables_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/s3tables"
)

// testEnv is a real catalog on disk behind the S3 Tables surface on a
// loopback server, with SigV4 keys of each kind.
type testEnv struct {
	t      testing.TB
	store  *catalog.Store
	srv    *httptest.Server
	s3t    *s3tables.Server
	jobs   *fakeJobs
	rw     catalog.APIKey // readwrite, every bucket
	ro     catalog.APIKey // readonly, every bucket
	scoped catalog.APIKey // readwrite, bucket "scoped" only
}

const (
	testRegion  = "eu-west-3"
	testAccount = "123456789012"
)

// newTestEnv serves a fresh catalog; opts adjust the surface's Config.
func newTestEnv(t testing.TB, opts ...func(*s3tables.Config)) *testEnv {
	t.Helper()
	dir := t.TempDir()
	return newTestEnvOn(t, catalog.Options{Path: filepath.Join(dir, "catalog.db"), Warehouse: filepath.Join(dir, "warehouse")}, opts...)
}

// newTestEnvOn is newTestEnv on a catalog opened with o.
func newTestEnvOn(t testing.TB, o catalog.Options, opts ...func(*s3tables.Config)) *testEnv {
	t.Helper()
	ctx := context.Background()
	st, err := catalog.Open(ctx, o)
	if err != nil {
		t.Fatalf("catalog.Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	e := &testEnv{t: t, store: st, jobs: &fakeJobs{}}
	mint := func(role catalog.Role, bucket string) catalog.APIKey {
		k, _, err := st.CreateAPIKey(ctx, "test-"+string(role)+bucket, role, bucket, 0)
		if err != nil {
			t.Fatalf("CreateAPIKey: %v", err)
		}
		if k.AccessKeyID == "" || k.SecretAccessKey == "" {
			t.Fatalf("CreateAPIKey returned no SigV4 pair: %+v", k)
		}
		return k
	}
	e.rw, e.ro, e.scoped = mint(catalog.RoleReadWrite, ""), mint(catalog.RoleReadonly, ""), mint(catalog.RoleReadWrite, "scoped")
	cfg := s3tables.Config{Store: st, Jobs: e.jobs, Region: testRegion, Account: testAccount,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, o := range opts {
		o(&cfg)
	}
	e.s3t = s3tables.New(cfg)
	e.srv = httptest.NewServer(e.s3t.Handler())
	t.Cleanup(e.srv.Close)
	return e
}

// client is the real AWS SDK client signing with key; opts adjust it.
func (e *testEnv) client(key catalog.APIKey, opts ...func(*sdk.Options)) *sdk.Client {
	return sdk.New(sdk.Options{
		Region:       testRegion,
		BaseEndpoint: aws.String(e.srv.URL),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey}, nil
		}),
		RetryMaxAttempts: 1, // the tests look at first answers
	}, opts...)
}

// shiftedSigner signs as a client whose clock is off by skew.
type shiftedSigner struct{ skew time.Duration }

func (s shiftedSigner) SignHTTP(ctx context.Context, c aws.Credentials, r *http.Request, hash, svc, region string, at time.Time, o ...func(*v4.SignerOptions)) error {
	return v4.NewSigner().SignHTTP(ctx, c, r, hash, svc, region, at.Add(s.skew), o...)
}

// tamperSigner signs correctly, then flips one hex digit of the signature.
type tamperSigner struct{}

func (tamperSigner) SignHTTP(ctx context.Context, c aws.Credentials, r *http.Request, hash, svc, region string, at time.Time, o ...func(*v4.SignerOptions)) error {
	if err := v4.NewSigner().SignHTTP(ctx, c, r, hash, svc, region, at, o...); err != nil {
		return err
	}
	h := []byte(r.Header.Get("Authorization"))
	last := len(h) - 1
	if h[last] == '0' {
		h[last] = '1'
	} else {
		h[last] = '0'
	}
	r.Header.Set("Authorization", string(h))
	return nil
}

// fakeJobs is a job history the test writes.
type fakeJobs struct {
	mu   sync.Mutex
	runs map[string][]s3tables.JobRun
}

func (f *fakeJobs) TableJobs(_ context.Context, id string) ([]s3tables.JobRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs[id], nil
}

func (f *fakeJobs) add(id string, r s3tables.JobRun) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.runs == nil {
		f.runs = map[string][]s3tables.JobRun{}
	}
	f.runs[id] = append([]s3tables.JobRun{r}, f.runs[id]...)
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// signRequest signs req with key for region, as the SDK signs: the body's
// SHA-256 as the payload hash, the time now.
func signRequest(t testing.TB, req *http.Request, key catalog.APIKey, body []byte, region string) {
	t.Helper()
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "s3tables", region, time.Now()); err != nil {
		t.Fatal(err)
	}
}
