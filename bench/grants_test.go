package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/lancerest"
	"github.com/floe/floe/persist/persisttest"
)

// newGrantSide is a catalog with a Lance table vec/ns/t and a readwrite
// key, and grants extra grants in the database: users u0… reading
// namespaces n0…n49 of the bucket, and the benchmark's own key reading
// each of those namespaces too (so its holder is not a one-grant list).
func newGrantSide(b *testing.B, grants int) *auditSide {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	db := persisttest.OpenAt(b, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	st, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	st.CacheReads(nil) // as floe serve does
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "vec", Format: catalog.FormatLance}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "vec", []string{"ns"}, nil); err != nil {
		b.Fatal(err)
	}
	ref := catalog.TableRef{Bucket: "vec", Namespace: []string{"ns"}, Name: "t"}
	if err := os.MkdirAll(filepath.Join(strings.TrimPrefix(st.DefaultLocation(ref, catalog.FormatLance), "file://"), "_versions"), 0o755); err != nil {
		b.Fatal(err)
	}
	if _, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance}); err != nil {
		b.Fatal(err)
	}
	k, key, err := st.CreateAPIKey(ctx, "bench", catalog.RoleReadWrite, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	const spaces = 50
	if grants > 0 {
		for n := range spaces {
			if _, err := st.CreateNamespace(ctx, "vec", []string{fmt.Sprintf("n%d", n)}, nil); err != nil {
				b.Fatal(err)
			}
			g := catalog.Grant{Grantee: catalog.Grantee{Kind: catalog.GranteeAPIKey, ID: k.ID}, Bucket: "vec",
				Namespace: []string{fmt.Sprintf("n%d", n)}, Privilege: "read"}
			if _, _, err := st.AddGrant(ctx, g); err != nil {
				b.Fatal(err)
			}
		}
	}
	for i := 0; i < grants-spaces; i++ {
		g := catalog.Grant{Grantee: catalog.Grantee{Kind: catalog.GranteeUser, ID: fmt.Sprintf("u%d", i/spaces)}, Bucket: "vec",
			Namespace: []string{fmt.Sprintf("n%d", i%spaces)}, Privilege: "read"}
		if _, _, err := st.AddGrant(ctx, g); err != nil {
			b.Fatal(err)
		}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	return &auditSide{key: key, lance: lancerest.New(lancerest.Config{Store: st, Logger: quiet}).Handler()}
}

// BenchmarkGrantsCost measures what a large grant table costs the hot
// path: Lance DescribeTable (the authorizer asked for read on the table)
// with 10,000 grants in the database against a catalog with none but the
// key's own, alternating blocks in the same run. Target: ≥ 0.8.
func BenchmarkGrantsCost(b *testing.B) {
	none, many := newGrantSide(b, 0), newGrantSide(b, 10_000)
	sides := []*auditSide{none, many}
	const round = 500
	var spent [2]time.Duration
	n := 0
	for b.Loop() {
		for k := range 2 {
			j := (k + n/round) % 2
			start := time.Now()
			for range round {
				sides[j].describe(b)
			}
			spent[j] += time.Since(start)
		}
		n += round
	}
	rate := func(j int) float64 { return float64(n) / spent[j].Seconds() }
	ratio := rate(1) / rate(0)
	b.ReportMetric(ratio, "many/none")
	b.Logf("DescribeTable: no grants %.0f/s, 10,000 grants %.0f/s: ratio %.2f (target ≥ 0.8); %d requests per side", rate(0), rate(1), ratio, n)
}
