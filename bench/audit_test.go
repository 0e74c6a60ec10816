package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/audit"
	"github.com/floe/floe/audit/auditedge"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/icebergrest"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/lancerest"
	"github.com/floe/floe/persist/persisttest"
)

// auditSide is one catalog with its Lance and Iceberg REST handlers, with
// the audit trail on (a running Trail on its own SQLite file beside the
// catalog's, as floe serve has it) or off (no auditor at all).
type auditSide struct {
	lance, iceberg http.Handler
	key            string
	trail          *audit.Trail
}

func newAuditSide(b *testing.B, on, reads bool) *auditSide {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	db := persisttest.OpenAt(b, filepath.Join(dir, "catalog.db"), dbschema.Catalog()...)
	st, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	st.CacheReads(nil) // as floe serve does
	for _, bk := range []struct {
		name string
		f    catalog.Format
	}{{"vec", catalog.FormatLance}, {"lake", catalog.FormatIceberg}} {
		if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: bk.name, Format: bk.f}); err != nil {
			b.Fatal(err)
		}
		if _, err := st.CreateNamespace(ctx, bk.name, []string{"ns"}, nil); err != nil {
			b.Fatal(err)
		}
	}
	ref := catalog.TableRef{Bucket: "vec", Namespace: []string{"ns"}, Name: "t"}
	if err := os.MkdirAll(filepath.Join(strings.TrimPrefix(st.DefaultLocation(ref, catalog.FormatLance), "file://"), "_versions"), 0o755); err != nil {
		b.Fatal(err)
	}
	if _, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance}); err != nil {
		b.Fatal(err)
	}
	_, key, err := st.CreateAPIKey(ctx, "bench", catalog.RoleReadWrite, "", 0)
	if err != nil {
		b.Fatal(err)
	}
	side := &auditSide{key: key}
	var aud edge.Auditor
	if on {
		// As floe serve has it on SQLite: the trail in its own file.
		adb := persisttest.OpenAt(b, filepath.Join(dir, "audit.db"), dbschema.Audit()...)
		side.trail = audit.New(audit.Config{Store: audit.NewStore(adb)})
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { side.trail.Run(rctx); close(done) }()
		b.Cleanup(func() { cancel(); <-done })
		aud = auditedge.New(side.trail, reads)
		st.OnTableEvent(func(e catalog.TableEvent) {
			side.trail.Add(audit.Entry{Type: audit.TypeTableCommitted, Bucket: e.Table.Bucket})
		})
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	side.lance = lancerest.New(lancerest.Config{Store: st, Logger: quiet, Auditor: aud}).Handler()
	ice := icebergrest.New(icebergrest.Config{Store: st, Logger: quiet, Auditor: aud})
	b.Cleanup(ice.Close)
	side.iceberg = ice.Handler()
	if rec := side.call(side.iceberg, "POST", "/v1/lake/namespaces/ns/tables",
		`{"name":"t","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}}`); rec.Code != 200 {
		b.Fatalf("create the Iceberg table: %d %s", rec.Code, rec.Body)
	}
	return side
}

func (s *auditSide) call(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, bytes.NewReader([]byte(body)))
	req.Header.Set("x-api-key", s.key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func (s *auditSide) describe(b *testing.B) {
	if rec := s.call(s.lance, "POST", "/v1/table/vec$ns$t/describe", `{}`); rec.Code != 200 {
		b.Fatalf("describe: %d %s", rec.Code, rec.Body)
	}
}

func (s *auditSide) commit(b *testing.B, i int) {
	body := fmt.Sprintf(`{"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"%d"}}]}`, i)
	if rec := s.call(s.iceberg, "POST", "/v1/lake/namespaces/ns/tables/t", body); rec.Code != 200 {
		b.Fatalf("commit: %d %s", rec.Code, rec.Body)
	}
}

// BenchmarkAuditCost measures what the audit trail costs the requests it
// records: DescribeTable (a read: with reads unaudited, only the edge's
// bookkeeping; also shown with --audit-reads) and Iceberg commits (a
// write: one record each, queued and inserted in batches into the trail's
// own database file), each with the trail on against off in the same run. Target:
// on ≥ 0.9 of off.
func BenchmarkAuditCost(b *testing.B) {
	b.Run("DescribeTable", func(b *testing.B) {
		off, on := newAuditSide(b, false, false), newAuditSide(b, true, false)
		compareSides(b, "DescribeTable", off, on, 500, func(s *auditSide, _ int) { s.describe(b) })
	})
	b.Run("DescribeTable_audit_reads", func(b *testing.B) {
		off, on := newAuditSide(b, false, false), newAuditSide(b, true, true)
		compareSides(b, "DescribeTable with --audit-reads", off, on, 500, func(s *auditSide, _ int) { s.describe(b) })
	})
	b.Run("IcebergCommit", func(b *testing.B) {
		off, on := newAuditSide(b, false, false), newAuditSide(b, true, false)
		compareSides(b, "Iceberg commit", off, on, 50, func(s *auditSide, i int) { s.commit(b, i) })
	})
}

// compareSides runs op on off and on in alternating blocks of round
// requests; a block of the trail's side ends only once the trail has
// stored every record of it (Flush), so its background inserts are charged
// to it. It reports on's rate as a share of off's.
func compareSides(b *testing.B, name string, off, on *auditSide, round int, op func(s *auditSide, i int)) {
	sides := []*auditSide{off, on}
	var spent [2]time.Duration
	n, i := 0, 0
	for b.Loop() {
		for k := range 2 {
			j := (k + n/round) % 2
			s := sides[j]
			start := time.Now()
			for r := range round {
				op(s, i+r)
			}
			if s.trail != nil {
				if err := s.trail.Flush(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			spent[j] += time.Since(start)
		}
		i += round
		n += round
	}
	rate := func(j int) float64 { return float64(n) / spent[j].Seconds() }
	ratio := rate(1) / rate(0)
	b.ReportMetric(ratio, "on/off")
	b.Logf("%s: audit trail off %.0f/s, on %.0f/s (records stored): ratio %.2f (target ≥ 0.9); %d requests per side", name, rate(0), rate(1), ratio, n)
}
