package e2e

import (
	"context"
	"encoding/json"
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
	"github.com/apache/iceberg-go/table"
	"github.com/chromedp/chromedp"
)

// snippetJourneyTimeout covers building floe, seeding both tables and
// compiling the copied iceberg-go program (arrow and iceberg-go from the
// module cache) on a loaded machine.
const snippetJourneyTimeout = 8 * time.Minute

// Rows the two seeded tables hold, which the copied snippets must print.
const (
	snippetLanceAppends = 2 // of 200 rows each (e2e/testdata/seed.mjs)
	snippetLanceRows    = "400 rows"
	snippetIcebergRows  = 25
)

// TestJourneySnippetsRunAsCopied signs in to a real floe, presses the
// Connect tab's read-only key button on a Lance and an Iceberg table,
// presses each snippet's Copy button, and runs what the button put on the
// clipboard unchanged: the LanceDB JS snippet with node, the iceberg-go
// ones (bearer, and SigV4 with the bucket's ARN as warehouse) with go run
// in a module of its own. Each must print its table's rows.
func TestJourneySnippetsRunAsCopied(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH and CI=true: the LanceDB snippet runs with node")
		}
		t.Skip("skipping: node is not on PATH (the LanceDB snippet runs with node)")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "node_modules", "@lancedb", "lancedb")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node_modules/@lancedb/lancedb is missing and CI=true: run npm ci")
		}
		t.Skip("skipping: node_modules/@lancedb/lancedb is missing (npm ci installs it)")
	}
	f := startFloeForSnippets(t, node, false)

	ctx, logs := browserContext(t, execPath)
	ctx, cancel := context.WithTimeout(ctx, snippetJourneyTimeout)
	defer cancel()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(f.url+"/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("nav-buckets")),
	); err != nil {
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
		if strings.Contains(l, "Content Security Policy") {
			t.Errorf("CSP violation: %s", l)
		}
	}

	t.Run("LanceDB JS", func(t *testing.T) {
		dir := t.TempDir()
		// The snippet imports @lancedb/lancedb: give it the repo's install.
		if err := os.Symlink(filepath.Join(repo, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "count.mjs"), js)
		out := runIn(t, dir, nil, node, "count.mjs")
		if strings.TrimSpace(out) != snippetLanceRows {
			t.Fatalf("node count.mjs printed %q, want %q", out, snippetLanceRows)
		}
	})
	t.Run("iceberg-go", func(t *testing.T) { runGoSnippet(t, repo, goSrc) })
	t.Run("iceberg-go SigV4", func(t *testing.T) { runGoSnippet(t, repo, goSigSrc) })
}

// runGoSnippet runs a copied Go program in a module of its own and checks
// it printed the Iceberg table's rows.
func runGoSnippet(t *testing.T, repo, src string) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), src)
	writeFile(t, filepath.Join(dir, "go.mod"), snippetGoMod(t, repo))
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.sum"), string(sum))
	// The repo's own requirements and sums: every module comes from the
	// module cache the repo's build filled, so this runs offline.
	out := runIn(t, dir, []string{"GOFLAGS=-mod=mod", "GOWORK=off"}, "go", "run", ".")
	if want := itoa(snippetIcebergRows) + " rows"; strings.TrimSpace(out) != want {
		t.Fatalf("go run printed %q, want %q", out, want)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	c := exec.Command(name, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
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

// snippetGoMod is a go.mod for the copied program holding the repo's own
// requirements (iceberg-go among them), so it builds from the module cache.
func snippetGoMod(t *testing.T, repo string) string {
	t.Helper()
	c := exec.Command("go", "mod", "edit", "-json")
	c.Dir = repo
	raw, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	var mod struct {
		Go      string
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal(raw, &mod); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("module count\n\ngo " + mod.Go + "\n\nrequire (\n")
	for _, r := range mod.Require {
		b.WriteString("\t" + r.Path + " " + r.Version + "\n")
	}
	b.WriteString(")\n")
	return b.String()
}

type snippetFloe struct{ url string }

// startFloeForSnippets runs the real floe with its Lance and Iceberg
// catalogs, seeds snip/docs/items through LanceDB and snip-lake.sales.events
// through iceberg-go, each over floe's own REST surface. withWorker adds
// --with-worker: the bundled workers, which also seed the demo table.
func startFloeForSnippets(t *testing.T, node string, withWorker bool) snippetFloe {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	bin := filepath.Join(dir, "floe")
	runIn(t, "..", nil, "go", "build", "-o", bin, "./cmd/floe")
	key := lastLine(runIn(t, "..", nil, bin, "token", "create", "--role", "readwrite", "--data", data))
	runIn(t, "..", nil, bin, "bucket", "create", "snip-lake", "--format", "iceberg", "--data", data)
	logFile, err := os.Create(filepath.Join(dir, "floe.log"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"serve", "--data", data, "--log-json", "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0",
		"--lance", "127.0.0.1:0", "--iceberg", "127.0.0.1:0", "--s3tables", ""}
	if withWorker {
		args = append(args, "--with-worker")
	}
	c := exec.Command(bin, args...)
	c.Dir = ".."
	c.Env = append(os.Environ(), "FLOE_ADMIN_PASSWORD="+adminPassword)
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
