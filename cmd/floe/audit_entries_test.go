package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/floe/floe/audit"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
)

func TestChangeEntries(t *testing.T) {
	tb := catalog.Table{ID: "u1", Bucket: "lake", Namespace: []string{"raw", "eu"}, Name: "orders", Format: catalog.FormatIceberg,
		Location: "file:///w/lake/raw.eu/orders", MetadataLocation: "file:///w/lake/raw.eu/orders/metadata/00001.json"}
	for _, tc := range []struct {
		ev   catalog.TableEvent
		typ  string
		keys map[string]any
	}{
		{catalog.TableEvent{Kind: catalog.TableCreated, Table: tb}, audit.TypeTableCreated,
			map[string]any{"table_id": "u1", "format": "ICEBERG", "metadata_location": tb.MetadataLocation}},
		{catalog.TableEvent{Kind: catalog.TableCommitted, Table: tb, Version: 7}, audit.TypeTableCommitted,
			map[string]any{"version": float64(7)}},
		{catalog.TableEvent{Kind: catalog.TableDropped, Table: tb, DataDeleted: true}, audit.TypeTableDropped,
			map[string]any{"data_deleted": true, "deregistered": false}},
	} {
		e := tableEntry(tc.ev)
		if e.Type != tc.typ || e.Bucket != "lake" || e.Namespace != "raw.eu" || e.Table != "orders" || e.Time.IsZero() {
			t.Fatalf("%s: entry %+v", tc.ev.Kind, e)
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(e.Data), &d); err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.keys {
			if d[k] != v {
				t.Errorf("%s: data[%s] = %v, want %v (%s)", tc.ev.Kind, k, d[k], v, e.Data)
			}
		}
	}
}

func TestJobEntry(t *testing.T) {
	// a job on no known table still makes an entry, naming only the id
	fin := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	e := jobEntry(t.Context(), nil, plugin.Job{ID: "j1", Type: "lance_compact", State: plugin.JobFailed, Error: "disk full", FinishedAt: fin})
	if e.Type != audit.TypeJobFinished || !e.Time.Equal(fin) || e.Fault != "failed" || e.Bucket != "" {
		t.Fatalf("entry %+v", e)
	}
	var d map[string]any
	_ = json.Unmarshal([]byte(e.Data), &d)
	if d["job_id"] != "j1" || d["state"] != "failed" || d["error"] != "disk full" {
		t.Fatalf("data %s", e.Data)
	}
	ok := jobEntry(t.Context(), nil, plugin.Job{ID: "j2", State: plugin.JobSucceeded})
	if ok.Fault != "" || ok.Outcome() != audit.OutcomeOK {
		t.Fatalf("a succeeded job's entry: %+v", ok)
	}
}
