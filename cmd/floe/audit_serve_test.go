package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/floe/floe/audit"
)

// receiver collects the events a sink delivers, by id (at-least-once: a
// repeat is counted, not kept twice).
type receiver struct {
	mu      sync.Mutex
	ids     map[string]audit.CloudEvent
	repeats int
}

func newReceiver() *receiver { return &receiver{ids: map[string]audit.CloudEvent{}} }

func (rc *receiver) add(b []byte) error {
	var ev audit.CloudEvent
	if err := json.Unmarshal(b, &ev); err != nil || ev.ID == "" || ev.SpecVersion != "1.0" {
		return fmt.Errorf("not a CloudEvent: %s", b)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if _, ok := rc.ids[ev.ID]; ok {
		rc.repeats++
	}
	rc.ids[ev.ID] = ev
	return nil
}

// missing lists the ids of want it has not received.
func (rc *receiver) missing(want []string) []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, id := range want {
		if _, ok := rc.ids[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

func startNATSServer(t *testing.T) string {
	t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(ns.Shutdown)
	return ns.ClientURL()
}

// keyOf creates an API key with the CLI and returns its id, secret and
// SigV4 pair.
func keyOf(t *testing.T, data, role string) (id, secret, access, sigSecret string) {
	t.Helper()
	out, code := run(t, "token", "create", "--role", role, data)
	m := regexp.MustCompile(`\((\S+)\) for every bucket, never expires; it is shown once:\nS3 Tables \(SigV4\): access key id (\S+), secret access key (\S+)\n(\S+)\n`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("token create (code %d):\n%s", code, out)
	}
	return m[1], m[4], m[2], m[3]
}

// exported reads the trail with floe audit export --json.
func exported(t *testing.T, data string) []audit.Entry {
	t.Helper()
	out, code := run(t, "audit", "export", "--json", data)
	if code != 0 {
		t.Fatalf("audit export: %d\n%s", code, out)
	}
	var es []audit.Entry
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e audit.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		es = append(es, e)
	}
	return es
}

// expected is one request of the mix that the trail must record.
type expected struct {
	surface, operation, principal string
	refused                       bool
}

// TestAuditMixedRequests drives 1,000 requests over the console, the Lance
// REST, the Iceberg REST and S3 Tables (writes, reads, refusals) into one
// `floe serve` with a webhook and a NATS server configured, and holds the
// trail to exactly the writes and refusals, once each, with their request
// id and principal; then both sinks must have received every event (the
// records and the table changes) at least once, deduped by id.
func TestAuditMixedRequests(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	for _, c := range [][]string{
		{"init"},
		{"bucket", "create", "lbk", "--format", "lance"},
		{"bucket", "create", "ibk", "--format", "iceberg"},
		{"bucket", "create", "sbk", "--format", "iceberg"},
	} {
		if out, code := run(t, append(c, data)...); code != 0 {
			t.Fatalf("%v: %s", c, out)
		}
	}
	rwID, rw, access, sigSecret := keyOf(t, data, "readwrite")
	roID, ro, _, _ := keyOf(t, data, "readonly")

	hook := newReceiver()
	hookSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/cloudevents+json") {
			t.Errorf("webhook Content-Type %q", r.Header.Get("Content-Type"))
		}
		if err := hook.add(b); err != nil {
			t.Error(err)
		}
	}))
	t.Cleanup(hookSrv.Close)
	natsURL := startNATSServer(t)
	natsRecv := newReceiver()
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if _, err := nc.Subscribe("floe.>", func(m *nats.Msg) {
		if err := natsRecv.add(m.Data); err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	srv := startServe(t, ctx, data, "--events-webhook", hookSrv.URL+"/events", "--events-nats", natsURL)
	t.Cleanup(func() {
		cancel()
		if err := srv.wait(t); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	lance, ice, console := "http://"+srv.addrs["lance"], "http://"+srv.addrs["iceberg"], "http://"+srv.addrs["http"]
	s3 := sdk.New(sdk.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://" + srv.addrs["s3tables"]),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: access, SecretAccessKey: sigSecret}, nil
		})})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	want := map[string]expected{} // by request id
	var wantMu sync.Mutex
	expect := func(id string, e expected) {
		wantMu.Lock()
		want[id] = e
		wantMu.Unlock()
	}
	do := func(method, url, id, key, body string, wantStatus int) {
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		req.Header.Set("X-Request-Id", id)
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != wantStatus {
			t.Errorf("%s %s (%s): %d, want %d", method, url, id, resp.StatusCode, wantStatus)
		}
	}
	const rounds = 100 // ten requests each
	round := func(i int) {
		id := func(k int) string { return fmt.Sprintf("mix-%03d-%d", i, k) }
		ns, lns := fmt.Sprintf("n%d", i), fmt.Sprintf("lbk$n%d", i)
		do("POST", lance+"/v1/namespace/"+lns+"/create", id(1), rw, `{}`, 200)
		expect(id(1), expected{"lance", "CreateNamespace", "apikey:" + rwID, false})
		do("POST", lance+"/v1/namespace/"+lns+"/describe", id(2), rw, `{}`, 200) // a read
		do("POST", lance+"/v1/table/"+lns+"$t/declare", id(3), rw, `{}`, 200)
		expect(id(3), expected{"lance", "DeclareTable", "apikey:" + rwID, false})
		do("POST", lance+"/v1/table/"+lns+"$t/describe", id(4), rw, `{}`, 200) // a read
		do("POST", lance+"/v1/table/"+lns+"$t/drop", id(5), ro, `{}`, 403)
		expect(id(5), expected{"lance", "DropTable", "apikey:" + roID, true})
		do("GET", lance+"/v1/namespace/lbk/list", id(6), "not-a-key", ``, 401)
		expect(id(6), expected{"lance", "ListNamespaces", "-", true})
		do("POST", ice+"/v1/ibk/namespaces", id(7), rw, `{"namespace":["`+ns+`"]}`, 200)
		expect(id(7), expected{"iceberg", "createNamespace", "apikey:" + rwID, false})
		do("GET", ice+"/v1/ibk/namespaces/"+ns, id(8), rw, ``, 200) // a read
		_, err := s3.CreateNamespace(context.Background(), &sdk.CreateNamespaceInput{
			TableBucketARN: aws.String("arn:aws:s3tables:us-east-1:000000000000:bucket/sbk"), Namespace: []string{ns}},
			func(o *sdk.Options) {
				o.APIOptions = append(o.APIOptions, smithyhttp.AddHeaderValue("X-Request-Id", id(9)))
			})
		if err != nil {
			t.Errorf("S3 Tables CreateNamespace: %v", err)
		}
		expect(id(9), expected{"s3tables", "CreateNamespace", "apikey:" + rwID, false})
		if i%2 == 0 {
			do("GET", console+"/buckets", id(10), "", ``, http.StatusSeeOther) // no session
			expect(id(10), expected{"console", "ListBuckets", "-", true})
		} else {
			do("GET", "http://"+srv.addrs["s3tables"]+"/buckets", id(10), "", ``, http.StatusForbidden) // unsigned
			expect(id(10), expected{"s3tables", "ListTableBuckets", "-", true})
		}
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				round(i)
			}
		})
	}
	for i := range rounds {
		next <- i
	}
	close(next)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// The trail writes in the background: wait until it holds them all.
	var got []audit.Entry
	deadline := time.Now().Add(60 * time.Second)
	for {
		got = got[:0]
		for _, e := range exported(t, data) {
			if e.Type == audit.TypeRequest && e.Surface != "cli" {
				got = append(got, e)
			}
		}
		if len(got) >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // polling interval, not an assertion
	}
	if len(got) != len(want) || len(want) != 700 {
		t.Fatalf("the trail holds %d request entries; the mix made %d writes and refusals (want 700)", len(got), len(want))
	}
	seen := map[string]bool{}
	for _, e := range got {
		w, ok := want[e.RequestID]
		if !ok {
			t.Errorf("an entry no write or refusal made: %+v", e)
			continue
		}
		if seen[e.RequestID] {
			t.Errorf("request %s recorded twice", e.RequestID)
		}
		seen[e.RequestID] = true
		if e.Surface != w.surface || e.Operation != w.operation || e.Principal != w.principal || e.Refused != w.refused {
			t.Errorf("request %s recorded as %s %s by %s refused=%v; want %+v", e.RequestID, e.Surface, e.Operation, e.Principal, e.Refused, w)
		}
		if e.ID == "" || e.Client == "" || e.Status == 0 || e.Time.IsZero() {
			t.Errorf("request %s lacks id, client, status or time: %+v", e.RequestID, e)
		}
		if !e.Refused && e.Bucket == "" {
			t.Errorf("write %s names no resource: %+v", e.RequestID, e)
		}
	}

	// Every event since serve started reaches both sinks, at least once.
	var ids []string
	created := 0
	for _, e := range exported(t, data) {
		if e.Surface == "cli" {
			continue // made before serve, so before the sinks' cursors
		}
		ids = append(ids, e.ID)
		if e.Type == audit.TypeTableCreated {
			created++
		}
	}
	if created != rounds {
		t.Errorf("%d table.created events, want one per DeclareTable (%d)", created, rounds)
	}
	for name, rc := range map[string]*receiver{"webhook": hook, "nats": natsRecv} {
		deadline := time.Now().Add(60 * time.Second)
		for len(rc.missing(ids)) > 0 && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond) // polling interval, not an assertion
		}
		if m := rc.missing(ids); len(m) > 0 {
			t.Errorf("%s is missing %d of %d events, e.g. %v", name, len(m), len(ids), m[:min(3, len(m))])
		}
		t.Logf("%s received %d events (%d repeats, deduped by id)", name, len(ids), rc.repeats)
	}
	// one event, checked whole
	for _, e := range got {
		if e.RequestID == "mix-007-3" {
			ev := hook.ids[e.ID]
			var d map[string]any
			_ = json.Unmarshal(ev.Data, &d)
			if ev.Type != audit.TypeRequest || ev.Source != "/floe/lance" || ev.Subject != "lbk/n7/t" || d["operation"] != "DeclareTable" ||
				d["request_id"] != "mix-007-3" || d["principal"] != "apikey:"+rwID {
				t.Errorf("event of mix-007-3: %+v %s", ev, ev.Data)
			}
		}
	}
}

// TestAuditExportRoundTrip: what floe audit export --json writes reads
// back as the entries the store holds, and --since and --until bound it.
func TestAuditExportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	for _, c := range [][]string{
		{"init"},
		{"bucket", "create", "rtb", "--format", "lance"},
		{"namespace", "create", "rtb", "ns"},
		{"bucket", "list"},                               // a read: not recorded
		{"bucket", "create", "rtb", "--format", "lance"}, // fails: recorded as failed
	} {
		run(t, append(c, data)...)
	}
	es := exported(t, data)
	var ops []string
	for _, e := range es {
		ops = append(ops, e.Operation+" "+e.Resource().String()+" "+e.Outcome())
		if e.Surface != "cli" || e.Principal == "" || e.Via != "cli" || e.ID == "" || e.Seq == 0 {
			t.Errorf("CLI entry %+v", e)
		}
	}
	if want := []string{"bucket create rtb ok", "namespace create rtb/ns ok", "bucket create rtb failed"}; !slices.Equal(ops, want) {
		t.Fatalf("exported %q, want %q", ops, want)
	}
	// the JSON is the entry: decode and encode again gives the same line
	out, _ := run(t, "audit", "export", "--json", data)
	first := strings.SplitN(out, "\n", 2)[0]
	b, _ := json.Marshal(es[0])
	if string(b) != first {
		t.Fatalf("round trip:\n%s\n%s", first, b)
	}
	// Another data directory has no trail of this one's: floe never used
	// it, so the CLI refuses it rather than making an empty catalog.
	if out, code := run(t, "audit", "export", "--json", data+"x"); code != 2 || !strings.Contains(out, "no floe catalog") {
		t.Fatalf("another data directory: code %d\n%s", code, out)
	}
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if out, code := run(t, "audit", "export", "--json", "--since", future, data); code != 0 || out != "" {
		t.Fatalf("--since the future: code %d, %q", code, out)
	}
	if out, code := run(t, "audit", "export", "--until", "1h", data); code != 0 || out != "" {
		t.Fatalf("--until an hour ago: code %d, %q", code, out)
	}
	if _, code := run(t, "audit", "export", "--since", "yesterday", data); code != 2 {
		t.Fatalf("a bad --since: exit %d, want 2", code)
	}
	text, _ := run(t, "audit", "export", data)
	if !strings.Contains(text, "\tbucket create\trtb\tok\t") {
		t.Fatalf("text export:\n%s", text)
	}
}

// TestAuditDeadWebhookNeverSlowsRequests: a webhook that refuses
// connections or accepts and never answers is retried in the background;
// requests meanwhile are as quick as without a webhook (the p50 ratios are
// printed, not asserted) and every one is still recorded.
func TestAuditDeadWebhookNeverSlowsRequests(t *testing.T) {
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers; the sink's timeout gives up
	}))
	t.Cleanup(hanging.Close)
	var hits sync.WaitGroup
	hits.Add(1)
	var once sync.Once
	hanging.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateActive {
			once.Do(hits.Done)
		}
	}
	// a port that was bound and closed again: connections are refused
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedURL := "http://" + ln.Addr().String() + "/events"
	ln.Close()
	const n = 200
	// The three servers run side by side and take their requests in turn,
	// so the machine's noise falls on each alike.
	type target struct {
		name, data, key, lance string
		lat                    []time.Duration
	}
	var ts []*target
	for _, c := range []struct {
		name string
		args []string
	}{{"off", nil}, {"refused", []string{"--events-webhook", refusedURL}}, {"hanging", []string{"--events-webhook", hanging.URL + "/events"}}} {
		dir := t.TempDir()
		data := "--data=" + dir
		if out, code := run(t, "init", data); code != 0 {
			t.Fatal(out)
		}
		if out, code := run(t, "bucket", "create", "lbk", "--format", "lance", data); code != 0 {
			t.Fatal(out)
		}
		_, key, _, _ := keyOf(t, data, "readwrite")
		ctx, cancel := context.WithCancel(context.Background())
		srv := startServe(t, ctx, append([]string{data}, c.args...)...)
		t.Cleanup(func() {
			cancel()
			if err := srv.wait(t); err != nil {
				t.Errorf("serve: %v", err)
			}
		})
		ts = append(ts, &target{name: c.name, data: data, key: key, lance: "http://" + srv.addrs["lance"]})
	}
	for i := range n {
		for k := range ts {
			tg := ts[(i+k)%len(ts)]
			req, _ := http.NewRequest("POST", tg.lance+fmt.Sprintf("/v1/namespace/lbk$n%d/create", i), strings.NewReader("{}"))
			req.Header.Set("x-api-key", tg.key)
			req.Header.Set("X-Request-Id", fmt.Sprintf("%s-%d", tg.name, i))
			start := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			tg.lat = append(tg.lat, time.Since(start))
			if resp.StatusCode != 200 {
				t.Fatalf("%s: request %d answered %d", tg.name, i, resp.StatusCode)
			}
		}
	}
	p50 := map[string]time.Duration{}
	for _, tg := range ts {
		deadline := time.Now().Add(30 * time.Second)
		for {
			recorded := 0
			for _, e := range exported(t, tg.data) {
				if strings.HasPrefix(e.RequestID, tg.name+"-") {
					recorded++
				}
			}
			if recorded == n {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d of %d requests recorded", tg.name, recorded, n)
			}
			time.Sleep(100 * time.Millisecond) // polling interval, not an assertion
		}
		slices.Sort(tg.lat)
		p50[tg.name] = tg.lat[n/2]
	}
	off, dead, hang := p50["off"], p50["refused"], p50["hanging"]
	hits.Wait() // the hanging receiver was really being called
	t.Logf("p50 of %d Lance writes: no webhook %v; refusing webhook %v (ratio %.2f); hanging webhook %v (ratio %.2f)",
		n, off, dead, float64(dead)/float64(off), hang, float64(hang)/float64(off))
}
