package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	_ "github.com/apache/iceberg-go/io/gocloud/s3" // seedIceberg writes to an S3 warehouse too
	"github.com/apache/iceberg-go/table"
	"github.com/chromedp/chromedp"

	"github.com/floe/floe/handlers"
	"github.com/floe/floe/internal/s3test"
)

// snippetJourneyTimeout covers building floe, seeding both tables, and
// running each snippet's header commands from an empty module cache: go get
// and npm install fetch from the proxy and the registry, and go run
// compiles iceberg-go, arrow and the AWS SDK from scratch on a loaded machine.
const snippetJourneyTimeout = 20 * time.Minute

// Rows the two seeded tables hold, which the copied snippets must print.
const (
	snippetLanceAppends = 2 // of 200 rows each (e2e/testdata/seed.mjs)
	snippetLanceRows    = "400 rows"
	snippetIcebergRows  = 25
)

// TestJourneySnippetsRunAsCopied signs in to a real floe, presses the
// Connect tab's read-only key button on a Lance and an Iceberg table,
// presses each snippet's Copy button, saves what the button put on the
// clipboard in an empty directory and runs the commands its header gives,
// literally and in order (npm install, node; go mod init, go get, go mod
// tidy, go run), with an empty Go module cache and npm cache and nothing of
// this repository's modules or node_modules in reach. Each must print its
// table's rows. It runs on a local warehouse and on an S3 one (SeaweedFS),
// where the iceberg-go snippets must register the s3:// file IO themselves.
func TestJourneySnippetsRunAsCopied(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	node := need(t, "node", "the LanceDB snippet runs with node")
	need(t, "npm", "the LanceDB snippet's header installs with npm")
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "node_modules", "@lancedb", "lancedb")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node_modules/@lancedb/lancedb is missing and CI=true: run npm ci (the seeding script uses it)")
		}
		t.Skip("skipping: node_modules/@lancedb/lancedb is missing (npm ci installs it; the seeding script uses it)")
	}
	clean := newCleanEnv(t)
	t.Run("local warehouse", func(t *testing.T) { snippetJourney(t, execPath, node, clean, nil) })
	t.Run("s3 warehouse", func(t *testing.T) { snippetJourney(t, execPath, node, clean, s3test.NewWithSTS(t)) })
}

// need finds a program the journey runs, or skips (fails in CI) saying why.
func need(t *testing.T, name, why string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not on PATH and CI=true: %s", name, why)
		}
		t.Skipf("skipping: %s is not on PATH (%s)", name, why)
	}
	return p
}

func snippetJourney(t *testing.T, execPath, node string, clean cleanEnv, store *s3test.Store) {
	f := startFloeForSnippets(t, node, snippetFloeOptions{store: store})

	ctx, logs := browserContext(t, execPath)
	ctx, cancel := context.WithTimeout(ctx, snippetJourneyTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, signIn(f.url)...); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	copied := func(tablePath, snippet string) string {
		t.Helper()
		if err := chromedp.Do(ctx,
			chromedp.Navigate(f.url+tablePath),
			chromedp.Click(tid("connect-link")),
			chromedp.WaitVisible(tid("table-connect-key-submit")),
			chromedp.Click(tid("table-connect-key-submit")),
			chromedp.WaitVisible(tid("table-connect-key")),
			// Catch what the Copy button hands the clipboard.
			chromedp.Evaluate[chromedp.Void](`Object.defineProperty(navigator, "clipboard", {configurable: true,
				value: {writeText: (t) => { window.floeCopied = t; return Promise.resolve(); }}}); undefined`),
			chromedp.Click(tid("copy-"+snippet)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="copy-`+snippet+`"][data-copied="true"]`)),
		); err != nil {
			t.Fatalf("%s: copy %s: %v", tablePath, snippet, err)
		}
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.floeCopied || ""`))
		if err != nil || text == "" {
			t.Fatalf("%s: nothing copied (%v)", tablePath, err)
		}
		if strings.Contains(text, "<") || strings.Contains(text, "FLOE_API_KEY") {
			t.Fatalf("%s: the copied snippet has a placeholder or no key:\n%s", tablePath, text)
		}
		return text
	}
	js := copied("/buckets/snip/namespaces/docs/tables/items", "lancedb-js")
	goSrc := copied("/buckets/snip-lake/namespaces/sales/tables/events", "iceberg-go")
	// The AWS S3 Tables way: SigV4 with the new key's pair, warehouse = the
	// bucket's ARN.
	goSigSrc := copied("/buckets/snip-lake/namespaces/sales/tables/events", "iceberg-go-sigv4")
	if !strings.Contains(goSigSrc, "arn:aws:s3tables:") || !strings.Contains(goSigSrc, "WithSigV4RegionSvc") {
		t.Fatalf("the SigV4 snippet does not sign or name the ARN:\n%s", goSigSrc)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "htmx:") {
			t.Errorf("browser console: %s", l)
		}
	}

	t.Run("LanceDB JS", func(t *testing.T) {
		dir := clean.emptyDir(t)
		out := runHeader(t, clean, dir, "count.mjs", js)
		if strings.TrimSpace(lastLine(out)) != snippetLanceRows {
			t.Fatalf("the last command printed %q, want %q", out, snippetLanceRows)
		}
		// The install the header made, not one found further up the tree.
		resolved := runIn(t, dir, clean.env, node, "--input-type=module", "-e", `console.log(import.meta.resolve("@lancedb/lancedb"))`)
		if !strings.Contains(resolved, dir) {
			t.Fatalf("@lancedb/lancedb resolved to %s, outside the snippet's directory %s", resolved, dir)
		}
	})
	runGo := func(t *testing.T, src string) {
		dir := clean.emptyDir(t)
		out := runHeader(t, clean, dir, "main.go", src)
		if want := itoa(snippetIcebergRows) + " rows"; strings.TrimSpace(lastLine(out)) != want {
			t.Fatalf("go run printed %q, want %q", out, want)
		}
	}
	t.Run("iceberg-go", func(t *testing.T) { runGo(t, goSrc) })
	t.Run("iceberg-go SigV4", func(t *testing.T) { runGo(t, goSigSrc) })
}

// cleanEnv is the environment a snippet's commands run in: this process's
// (PATH, proxies, CA certificates) without any Go or npm setting that would
// reach this repository's modules, with a module cache and an npm cache of
// the test's own that start empty.
type cleanEnv struct {
	env  []string
	root string
}

func newCleanEnv(t *testing.T) cleanEnv {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// The module cache starts empty on every run, but at the same path for
	// this checkout: Go's build cache keys compiled packages by their
	// source's path, so a second run compiles iceberg-go and the AWS SDK
	// from its cache (minutes on a loaded machine otherwise) while every
	// module is still fetched afresh from the proxy.
	sum := sha256.Sum256([]byte(repo))
	root := filepath.Join(os.TempDir(), "floe-snippets-"+hex.EncodeToString(sum[:6]))
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "GOFLAGS", k == "GOWORK", k == "GOPATH", k == "GOMODCACHE", k == "GOENV", k == "GONOSUMDB", k == "GONOSUMCHECK",
			k == "GOPRIVATE", k == "GONOPROXY", k == "NODE_PATH", strings.HasPrefix(strings.ToLower(k), "npm_"),
			strings.HasPrefix(k, "AWS_"), k == "FLOE_API_KEY", k == "FLOE_ACCESS_KEY_ID", k == "FLOE_SECRET_ACCESS_KEY":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"GOPATH="+filepath.Join(root, "gopath"),
		"GOMODCACHE="+filepath.Join(root, "modcache"),
		"GOENV=off", // no go env -w settings of this machine's user
		"GOFLAGS=",
		"npm_config_cache="+filepath.Join(root, "npm-cache"),
		"npm_config_userconfig="+filepath.Join(root, "npmrc"), // an empty user config
		"npm_config_update_notifier=false",
		"npm_config_fund=false",
		"npm_config_audit=false",
	)
	c := cleanEnv{env: env, root: root}
	// The module cache's files are read-only: go clean -modcache removes
	// them, then the rest goes.
	clean := func() {
		cmd := exec.Command("go", "clean", "-modcache")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("go clean -modcache: %v\n%s", err, out)
		}
		if err := os.RemoveAll(root); err != nil {
			t.Fatalf("empty %s: %v", root, err)
		}
	}
	clean()
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(clean)
	return c
}

// emptyDir is a fresh directory inside the clean root, which has no
// go.mod, go.work, package.json or node_modules above it up to /tmp.
func (c cleanEnv) emptyDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(c.root, "run-")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// runHeader saves src as file in dir and runs the commands of its header
// one by one through sh, as someone pasting them would; it returns the last
// command's output.
func runHeader(t *testing.T, c cleanEnv, dir, file, src string) string {
	t.Helper()
	cmds := handlers.RunCommands(src)
	if len(cmds) == 0 {
		t.Fatalf("the snippet's header names no commands:\n%s", src)
	}
	writeFile(t, filepath.Join(dir, file), src)
	var out string
	for _, cmd := range cmds {
		out = runIn(t, dir, c.env, "sh", "-c", cmd)
	}
	return out
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runIn runs a command in dir; a non-nil env replaces this process's
// environment, nil extends nothing.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	c := exec.Command(name, args...)
	c.Dir = dir
	if env != nil {
		c.Env = env
	}
	out, err := c.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s %v in %s: %v\n%s%s", name, args, dir, err, out, stderr)
	}
	return string(out)
}

type snippetFloe struct{ url string }

// snippetFloeOptions: withWorker adds --with-worker (the bundled workers,
// which also seed the demo table); store puts the warehouse on that S3
// store (its STS on), with table-scoped session keys vended to clients:
// the snippets' key only reads, and only STS keys can be cut to that.
type snippetFloeOptions struct {
	withWorker bool
	store      *s3test.Store
}

// startFloeForSnippets runs the real floe with its Lance and Iceberg
// catalogs, seeds snip/docs/items through LanceDB and snip-lake.sales.events
// through iceberg-go, each over floe's own REST surface.
func startFloeForSnippets(t *testing.T, node string, o snippetFloeOptions) snippetFloe {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	bin := filepath.Join(dir, "floe")
	runIn(t, "..", nil, "go", "build", "-o", bin, "./cmd/floe")
	logFile, err := os.Create(filepath.Join(dir, "floe.log"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"serve", "--data", data, "--log-json", "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0",
		"--lance", "127.0.0.1:0", "--iceberg", "127.0.0.1:0", "--s3tables", ""}
	if o.withWorker {
		args = append(args, "--with-worker")
	}
	env := append(os.Environ(), "FLOE_ADMIN_PASSWORD="+adminPassword)
	if st := o.store; st != nil {
		args = append(args, "--warehouse", "s3://"+st.Bucket(t)+"/floe", "--s3-endpoint", st.Endpoint,
			"--s3-region", s3test.Region, "--s3-path-style", "--vend-credentials", "sts", "--s3-sts-role-arn", st.RoleARN)
		env = append(env, "AWS_ACCESS_KEY_ID="+st.AccessKey, "AWS_SECRET_ACCESS_KEY="+st.SecretKey, "AWS_REGION="+s3test.Region)
	}
	c := exec.Command(bin, args...)
	c.Dir = ".."
	c.Env = env
	c.Stdout, c.Stderr = logFile, logFile
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = c.Process.Kill()
			<-done
		}
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			if len(b) > 8000 {
				b = b[len(b)-8000:]
			}
			t.Logf("floe log (tail):\n%s", b)
		}
	})
	addrs := startedAddrs(t, logFile.Name())
	lanceAddr, icebergAddr := addrs["lance"], addrs["iceberg"]
	url := "http://" + addrs["http"]
	for deadline := time.Now().Add(time.Minute); ; {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("floe did not come up: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The CLI acts on the warehouse serve recorded for this --data (the
	// S3 store's keys come from the same environment).
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append(args, "--data", data)...)
		cmd.Dir, cmd.Env = "..", env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("floe %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	key := lastLine(cli("token", "create", "--role", "readwrite"))
	cli("bucket", "create", "snip-lake", "--format", "iceberg")
	runIn(t, "..", nil, node, "e2e/testdata/seed.mjs", "http://"+lanceAddr, key, "snip", "docs", "items", itoa(snippetLanceAppends))
	seedIceberg(t, "http://"+icebergAddr, key)
	return snippetFloe{url: url}
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(l[len(l)-1])
}

// seedIceberg creates snip-lake.sales.events with iceberg-go and appends
// snippetIcebergRows rows, as an engine would.
func seedIceberg(t *testing.T, uri, key string) {
	t.Helper()
	ctx := context.Background()
	cat, err := rest.NewCatalog(ctx, "floe", uri, rest.WithWarehouseLocation("snip-lake"), rest.WithOAuthToken(key))
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, []string{"sales"}, nil); err != nil {
		t.Fatal(err)
	}
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
	)
	tbl, err := cat.CreateTable(ctx, table.Identifier{"sales", "events"}, schema)
	if err != nil {
		t.Fatalf("iceberg-go create: %v", err)
	}
	as := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	for i := range snippetIcebergRows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append("event " + itoa(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	at := array.NewTableFromRecords(as, []arrow.RecordBatch{rec})
	defer at.Release()
	if _, err := tbl.AppendTable(ctx, at, 1024, nil); err != nil {
		t.Fatalf("iceberg-go append: %v", err)
	}
}
