package iceworker

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin/pluginpb"
)

// TestIssue26SkippedTableSaysWhy: a table whose metadata iceberg-go
// refuses (an older floe stored min-snapshots-to-keep -1) was skipped by
// every sweep with a log line only, so its Maintenance tab showed old
// figures or none and nobody learnt that it was no longer maintained. The
// sweep now observes it with the reason; the readable table beside it is
// observed as before.
func TestIssue26SkippedTableSaysWhy(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	appendRows(t, e.createTable(t, "good", true, nil), 0, 6)
	bad := appendRows(t, e.createTable(t, "bad", true, nil), 0, 6)

	// Play the older floe: the same metadata with refs iceberg-go refuses.
	ref := catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "bad"}
	tb, err := e.store.GetTable(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(strings.TrimPrefix(tb.MetadataLocation, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	var md map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&md); err != nil {
		t.Fatal(err)
	}
	md["refs"] = map[string]any{"main": map[string]any{"snapshot-id": bad.CurrentSnapshot().SnapshotID, "type": "branch", "min-snapshots-to-keep": -1}}
	out, _ := json.Marshal(md)
	loc := tb.MetadataLocation[:strings.LastIndex(tb.MetadataLocation, "/")] + "/00009-older-floe.metadata.json"
	if err := os.WriteFile(strings.TrimPrefix(loc, "file://"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CommitTable(ctx, tb.ID, tb.VersionToken, loc, nil); err != nil {
		t.Fatal(err)
	}

	goodID := e.ref(t, "good").ID
	got := map[string]Figures{}
	errText := Detect(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), &pluginpb.Detect{JobType: JobCompact, Cluster: &pluginpb.ClusterContext{IcebergRestUrl: e.url, ApiKey: e.key}},
		&catalogs{}, LocalFiles{}, nil, DetectOut{
			Proposals: func([]*pluginpb.Proposal) {},
			Observations: func(obs []*pluginpb.Observation) {
				for _, o := range obs {
					var f Figures
					if err := json.Unmarshal([]byte(o.GetAttributesJson()), &f); err != nil {
						t.Errorf("observation %s: %v", o.GetAttributesJson(), err)
					}
					got[o.GetObjectId()] = f
				}
			},
		})
	if errText != "" {
		t.Fatalf("sweep: %s", errText)
	}
	if f, ok := got[tb.ID]; !ok || !strings.Contains(f.Unreadable, "min snapshots to keep") || f.Rows != 0 {
		t.Fatalf("the unreadable table's observation = %+v (observed %v); want the reason and no figures", f, ok)
	}
	if f := got[goodID]; f.Unreadable != "" || f.Rows != 6 {
		t.Fatalf("the readable table's observation = %+v", f)
	}
}
