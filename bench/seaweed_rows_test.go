package bench

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/s3test"
)

// The namespace both consoles list, and how it is measured.
const (
	rowsTables   = 1_000 // tables in the namespace, all on one page
	rowsBucket   = "rows"
	rowsNS       = "wide"
	rowsRounds   = 6  // rounds, alternating which console goes first
	rowsRequests = 50 // requests per console per round
	rowsWarm     = 20 // unmeasured requests per console before the rounds
)

// BenchmarkConsoleRowsBesideSeaweedFS measures how many table rows a second
// floe's console renders beside SeaweedFS's admin UI, side by side in one
// run, each listing one namespace of 1,000 Iceberg tables on one page:
// SeaweedFS's GET /object-store/s3tables/buckets/rows/namespaces/wide/tables
// (its admin lists up to 1,000 tables of a namespace on one page, no
// paging) in a `weed mini` with the admin UI on (loopback, no password, so
// no login), seeded through its S3 Tables API with the AWS SDK; and floe's
// GET /buckets/rows/namespaces/wide?per=1000 in a `floe serve`, logged in,
// seeded with the same names through the catalog's own API. Each console
// is its own process over loopback, read by one sequential client that
// accepts gzip as a browser does and reads each body to its end. Both
// pages must hold all 1,000 names. Then rounds of 50 requests to each,
// alternating which goes first, after 20 warm-ups each: per round and
// overall the p50, rows a second (1,000 / p50) and floe's rows a second ÷
// SeaweedFS's, each server's CPU per page, and the load average at the
// start and the end.
//
//	go test -run '^$' -bench '^BenchmarkConsoleRowsBesideSeaweedFS$' -benchtime 1x -v ./bench/
//
// The weed binary is the one scripts/weed-build.sh caches, or FLOE_WEED's;
// without it the benchmark skips, except in CI, where it fails.
// FLOE_BENCH_FLOE names a floe binary to measure instead of building this
// tree's.
func BenchmarkConsoleRowsBesideSeaweedFS(b *testing.B) {
	loadStart := loadAvg(b)
	store := s3test.NewWithAdminUI(b)
	names := make([]string, rowsTables)
	for i := range names {
		names[i] = wideName(i)
	}
	weedSeeded := seedSeaweed(b, store, names)

	dir := b.TempDir()
	bin := os.Getenv("FLOE_BENCH_FLOE")
	if bin == "" {
		bin = goBuild(b, dir, "floe", "../cmd/floe")
	}
	run := newScaleRun(b, bin, filepath.Join(dir, "data"), "")
	floeSeeded := seedFloeRows(b, run.seed, names)
	run.seed.settle(b)
	b.Logf("seeded %d tables in one namespace: SeaweedFS in %s (%s a CreateTable, one at a time through the S3 Tables API); floe in %s (one CreateTables through the catalog's API)",
		rowsTables, weedSeeded.Round(time.Millisecond), (weedSeeded / rowsTables).Round(time.Microsecond), floeSeeded.Round(time.Millisecond))

	srv := serveOn(b, bin, run.seed.data, run.seed.dsn, "serve.log")
	floeChild := &child{cmd: srv.cmd}
	sides := []*rowsSide{
		{name: "SeaweedFS", client: rowsClient(nil),
			url: store.Admin + "/object-store/s3tables/buckets/" + rowsBucket + "/namespaces/" + rowsNS + "/tables",
			cpu: func() time.Duration {
				d, err := store.CPUTime()
				if err != nil {
					b.Fatal(err)
				}
				return d
			}},
		{name: "floe", client: floeLogin(b, rowsClient(newJar()), srv.console),
			url: "http://" + srv.console + "/buckets/" + rowsBucket + "/namespaces/" + rowsNS + "?per=1000",
			cpu: func() time.Duration { return floeChild.cpu(b) }},
	}
	for _, s := range sides {
		s.check(b, names)
		for range rowsWarm {
			if _, err := s.get(); err != nil {
				b.Fatal(err)
			}
		}
	}

	for round := range rowsRounds {
		order := sides
		if round%2 == 1 {
			order = []*rowsSide{sides[1], sides[0]}
		}
		for _, s := range order {
			c0 := s.cpu()
			times := make([]time.Duration, rowsRequests)
			for i := range times {
				d, err := s.get()
				if err != nil {
					b.Fatal(err)
				}
				times[i] = d
			}
			s.cpuUsed += s.cpu() - c0
			s.all = append(s.all, times...)
			s.rounds = append(s.rounds, p50Of(times))
		}
		w, f := sides[0].rounds[round], sides[1].rounds[round]
		b.Logf("round %d (%s first): SeaweedFS p50 %.3f ms, %.0f rows/s; floe p50 %.3f ms, %.0f rows/s; floe ÷ SeaweedFS %.2f",
			round+1, order[0].name, ms(w), rowsPerSecond(w), ms(f), rowsPerSecond(f), rowsPerSecond(f)/rowsPerSecond(w))
	}
	for b.Loop() { // the rounds above are timed by hand, per console
	}
	w, f := p50Of(sides[0].all), p50Of(sides[1].all)
	n := time.Duration(rowsRounds * rowsRequests)
	b.Logf("overall (%d requests each): SeaweedFS p50 %.3f ms, %.0f rows/s, server CPU %.2f ms a page; floe p50 %.3f ms, %.0f rows/s, server CPU %.2f ms a page; floe ÷ SeaweedFS %.2f by p50 (%.2f by server CPU a page)",
		rowsRounds*rowsRequests, ms(w), rowsPerSecond(w), ms(sides[0].cpuUsed/n), ms(f), rowsPerSecond(f), ms(sides[1].cpuUsed/n),
		rowsPerSecond(f)/rowsPerSecond(w), float64(sides[0].cpuUsed)/float64(max(sides[1].cpuUsed, 1)))
	b.Logf("load average (1, 5, 15 min): %s at the start, %s at the end", loadStart, loadAvg(b))
	b.ReportMetric(rowsPerSecond(w), "seaweedfs-rows/s")
	b.ReportMetric(rowsPerSecond(f), "floe-rows/s")
	b.ReportMetric(rowsPerSecond(f)/rowsPerSecond(w), "floe/seaweedfs")
}

// rowsSide is one console: its page, a client holding its session, and
// what the rounds measured.
type rowsSide struct {
	name    string
	url     string
	client  *http.Client
	cpu     func() time.Duration // the server process's CPU time so far
	rounds  []time.Duration      // p50 of each round
	all     []time.Duration      // every measured request
	cpuUsed time.Duration        // server CPU over the measured requests
}

// rowsClient keeps its connection and leaves the body as sent: it asks for
// gzip itself, and the timed requests read the compressed bytes, so what
// is timed is the server's and the wire's, not this process's inflating.
func rowsClient(jar http.CookieJar) *http.Client {
	return &http.Client{Jar: jar, Timeout: time.Minute, Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 1}}
}

// fetch sends one GET and reads the body to its end: the time to the last
// byte, the response and its body as sent.
func (s *rowsSide) fetch() (time.Duration, *http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, s.url, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	t0 := time.Now()
	res, err := s.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	body, err := io.ReadAll(res.Body)
	d := time.Since(t0)
	res.Body.Close()
	if err != nil {
		return 0, nil, nil, err
	}
	if res.StatusCode != http.StatusOK {
		return 0, nil, nil, fmt.Errorf("%s: GET %s: %d %s", s.name, s.url, res.StatusCode, bytes.TrimSpace(body[:min(len(body), 300)]))
	}
	return d, res, body, nil
}

func (s *rowsSide) get() (time.Duration, error) {
	d, _, _, err := s.fetch()
	return d, err
}

// rowsCell is a table name as an element's text: a row's name cell.
var rowsCell = regexp.MustCompile(`>\s*(t[0-9]{7})\s*<`)

// check fails unless the page is HTML holding every name, each as a
// cell's text, and logs what the page holds.
func (s *rowsSide) check(b *testing.B, names []string) {
	b.Helper()
	_, res, wire, err := s.fetch()
	if err != nil {
		b.Fatal(err)
	}
	body := wire
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(wire))
		if err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		b.Fatalf("%s: GET %s: Content-Type %q, not a page", s.name, s.url, ct)
	}
	found := map[string]bool{}
	cells := rowsCell.FindAllSubmatch(body, -1)
	for _, m := range cells {
		found[string(m[1])] = true
	}
	var missing []string
	for _, n := range names {
		if !found[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		b.Fatalf("%s: GET %s holds %d of the %d table names (missing %s …); its start:\n%s", s.name, s.url,
			len(names)-len(missing), len(names), strings.Join(missing[:min(len(missing), 5)], ", "), body[:min(len(body), 2000)])
	}
	enc := res.Header.Get("Content-Encoding")
	if enc == "" {
		enc = "identity"
	}
	mid := names[len(names)/2]
	b.Logf("%s: GET %s holds all %d names (%d as an element's text; %s appears %d times); %d bytes of HTML, %d on the wire (%s)",
		s.name, s.url, len(names), len(cells), mid, bytes.Count(body, []byte(mid)), len(body), len(wire), enc)
}

// seedSeaweed makes the bucket, the namespace and the tables through
// SeaweedFS's S3 Tables API, signed by the SDK with the store's keys,
// one CreateTable at a time, and returns how long that took.
func seedSeaweed(b *testing.B, store *s3test.Store, names []string) time.Duration {
	b.Helper()
	ctx := b.Context()
	c := sdk.New(sdk.Options{
		BaseEndpoint: aws.String(store.Endpoint),
		Region:       s3test.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(store.AccessKey, store.SecretKey, ""),
	})
	t0 := time.Now()
	bucket, err := c.CreateTableBucket(ctx, &sdk.CreateTableBucketInput{Name: aws.String(rowsBucket)})
	if err != nil {
		b.Fatalf("SeaweedFS CreateTableBucket: %v", err)
	}
	if _, err := c.CreateNamespace(ctx, &sdk.CreateNamespaceInput{TableBucketARN: bucket.Arn, Namespace: []string{rowsNS}}); err != nil {
		b.Fatalf("SeaweedFS CreateNamespace: %v", err)
	}
	for _, n := range names {
		if _, err := c.CreateTable(ctx, &sdk.CreateTableInput{TableBucketARN: bucket.Arn, Namespace: aws.String(rowsNS),
			Name: aws.String(n), Format: types.OpenTableFormatIceberg}); err != nil {
			b.Fatalf("SeaweedFS CreateTable %s: %v", n, err)
		}
	}
	return time.Since(t0)
}

// seedFloeRows makes the same bucket, namespace and tables (Iceberg, no
// metadata yet, as SeaweedFS's) in floe's catalog with floe serve not yet
// started, and returns how long that took.
func seedFloeRows(b *testing.B, s *seeder, names []string) time.Duration {
	b.Helper()
	ctx := b.Context()
	st, done := s.open(b)
	defer done()
	t0 := time.Now()
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: rowsBucket, Format: catalog.FormatIceberg}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, rowsBucket, []string{rowsNS}, nil); err != nil {
		b.Fatal(err)
	}
	batch := make([]catalog.CreateTableInput, len(names))
	for i, n := range names {
		batch[i] = catalog.CreateTableInput{Format: catalog.FormatIceberg,
			TableRef: catalog.TableRef{Bucket: rowsBucket, Namespace: []string{rowsNS}, Name: n}}
	}
	if _, err := st.CreateTables(ctx, batch); err != nil {
		b.Fatal(err)
	}
	return time.Since(t0)
}

// floeLogin logs c in to floe's console as its admin (serveOn's
// FLOE_ADMIN_PASSWORD); c must hold a cookie jar, which keeps the session.
func floeLogin(b *testing.B, c *http.Client, console string) *http.Client {
	b.Helper()
	form := url.Values{"username": {"admin"}, "password": {"bench-admin-password"}}
	req, _ := http.NewRequest(http.MethodPost, "http://"+console+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+console)
	res, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	u, _ := url.Parse("http://" + console + "/")
	if len(c.Jar.Cookies(u)) == 0 {
		b.Fatalf("floe login: %s and no session cookie", res.Status)
	}
	return c
}

func p50Of(times []time.Duration) time.Duration {
	s := slices.Clone(times)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return d.Seconds() * 1000 }

func rowsPerSecond(p50 time.Duration) float64 { return rowsTables / p50.Seconds() }

// loadAvg is /proc/loadavg's 1, 5 and 15 minute figures.
func loadAvg(b *testing.B) string {
	b.Helper()
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	f := strings.Fields(string(raw))
	return strings.Join(f[:min(len(f), 3)], " ")
}

func newJar() http.CookieJar {
	jar, _ := cookiejar.New(nil)
	return jar
}
