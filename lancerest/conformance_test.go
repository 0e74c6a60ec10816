package lancerest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
)

// TestSpecConformance walks all 54 operations of the Lance Namespace spec
// (docs/src/spec.yaml, lance-format/lance-namespace) in the spec's order on
// a bucket "lnc" with namespace "ns" and a written table "t1", and checks
// status and body shape: a served operation answers 200 (with the spec's
// required fields), any other the spec's Unsupported (406, code 0, with
// error, detail and instance). A table of results goes to the test log.
func TestSpecConformance(t *testing.T) {
	e := newTestEnv(t, false)
	// RestoreTable runs as a worker job: a stand-in plugin channel whose
	// worker finishes every job (floe serve passes the real one).
	srv := httptest.NewServer(New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Jobs: &fakeJobs{worker: true, end: plugin.JobSucceeded}, Tasks: &fakeTasks{}}).Handler())
	t.Cleanup(srv.Close)
	e.srv = srv
	e.seed()
	e.must("POST", "/v1/table/lnc$ns$t1/declare", "")
	e.must("POST", "/v1/table/lnc$ns$t2/declare", "")
	e.must("POST", "/v1/table/lnc$ns$t5/declare", "")
	writeVersions(t, filepath.Join(e.warehouse, "lnc", "ns", "t1.lance"), v2(1), v2(2))
	// Version 2 is a real manifest with indices, for the stats and index
	// operations.
	writeManifest(t, filepath.Join(e.warehouse, "lnc", "ns", "t1.lance"), 2, indexedManifest(t))
	// A dataset the catalog does not know yet, for RegisterTable.
	writeVersions(t, filepath.Join(e.warehouse, "lnc", "ns", "found.lance"), v2(1))
	// The version-creating operations serve buckets with managed versioning.
	if _, err := e.store.CreateBucket(context.Background(), catalog.CreateBucketInput{Name: "mvb", Format: catalog.FormatLance, ManagedVersioning: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateNamespace(context.Background(), "mvb", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	e.must("POST", "/v1/table/mvb$ns$t/declare", "")
	mvDir := filepath.Join(e.warehouse, "mvb", "ns", "t.lance")
	staged1, staged2 := stage(t, mvDir, 1, "a"), stage(t, mvDir, 2, "b")
	type op struct {
		id, method, path, body string
		served                 bool
		keys                   []string // fields a 200 body must carry; nil for none
	}
	tbl := "/v1/table/lnc$ns$t1"
	ops := []op{
		{"CreateNamespace", "POST", "/v1/namespace/lnc$n2/create", `{}`, true, nil},
		{"ListNamespaces", "GET", "/v1/namespace/lnc/list", "", true, []string{"namespaces"}},
		{"DescribeNamespace", "POST", "/v1/namespace/lnc$ns/describe", `{}`, true, []string{"properties"}},
		{"DropNamespace", "POST", "/v1/namespace/lnc$n2/drop", `{}`, true, nil},
		{"NamespaceExists", "POST", "/v1/namespace/lnc$ns/exists", `{}`, true, nil},
		{"ListTables", "GET", "/v1/namespace/lnc$ns/table/list", "", true, []string{"tables"}},
		{"ListAllTables", "GET", "/v1/table", "", true, []string{"tables"}},
		{"RegisterTable", "POST", "/v1/table/lnc$ns$t3/register", `{"location":` + fmt.Sprintf("%q", filepath.Join(e.warehouse, "lnc", "ns", "found.lance")) + `,"mode":"create"}`, true, []string{"location"}},
		{"DescribeTable", "POST", tbl + "/describe", `{}`, true, []string{"location"}},
		{"TableExists", "POST", tbl + "/exists", `{}`, true, nil},
		{"DropTable", "POST", "/v1/table/lnc$ns$t2/drop", `{}`, true, nil},
		{"DeregisterTable", "POST", "/v1/table/lnc$ns$t3/deregister", `{}`, true, nil},
		{"RestoreTable", "POST", tbl + "/restore", `{"version":1}`, true, []string{"transaction_id"}},
		{"RenameTable", "POST", "/v1/table/lnc$ns$t5/rename", `{"new_table_name":"t6"}`, true, nil},
		{"UpdateTableSchemaMetadata", "POST", tbl + "/schema_metadata/update", `{}`, false, nil},
		{"ListTableVersions", "POST", tbl + "/version/list", `{}`, true, []string{"versions"}},
		{"CreateTableVersion", "POST", "/v1/table/mvb$ns$t/version/create", createBody(1, staged1), true, []string{"version"}},
		{"DescribeTableVersion", "POST", tbl + "/version/describe", `{}`, true, []string{"version"}},
		{"BatchCreateTableVersions", "POST", "/v1/table/version/batch-create", `{"entries":[{"id":["mvb","ns","t"],"version":2,"manifest_path":"` + staged2 + `"}]}`, true, []string{"versions"}},
		{"BatchDeleteTableVersions", "POST", "/v1/table/mvb$ns$t/version/delete", `{"ranges":[{"start_version":1,"end_version":2}]}`, true, []string{"deleted_count"}},
		{"BatchCommitTables", "POST", "/v1/table/batch-commit", `{}`, false, nil},
		{"AlterTableAlterColumns", "POST", tbl + "/alter_columns", `{}`, false, nil},
		{"UpdateFieldMetadata", "POST", tbl + "/update_field_metadata", `{}`, false, nil},
		{"AlterTableDropColumns", "POST", tbl + "/drop_columns", `{}`, false, nil},
		{"GetTableStats", "POST", tbl + "/stats", `{}`, true, []string{"total_bytes", "num_rows", "num_indices", "fragment_stats"}},
		{"InsertIntoTable", "POST", tbl + "/insert", `{}`, false, nil},
		{"MergeInsertIntoTable", "POST", tbl + "/merge_insert", `{}`, false, nil},
		{"UpdateTable", "POST", tbl + "/update", `{}`, false, nil},
		{"DeleteFromTable", "POST", tbl + "/delete", `{}`, false, nil},
		{"QueryTable", "POST", tbl + "/query", `{}`, false, nil},
		{"CountTableRows", "POST", tbl + "/count_rows", `{}`, true, nil},
		{"CreateTable", "POST", tbl + "/create", `{}`, false, nil},
		{"ExplainTableQueryPlan", "POST", tbl + "/explain_plan", `{}`, false, nil},
		{"AnalyzeTableQueryPlan", "POST", tbl + "/analyze_plan", `{}`, false, nil},
		{"AlterTableAddColumns", "POST", tbl + "/add_columns", `{}`, false, nil},
		{"AlterTableBackfillColumns", "POST", tbl + "/backfill_column", `{}`, false, nil},
		{"RefreshMaterializedView", "POST", "/v1/materialized_view/lnc$ns$mv/refresh", `{}`, false, nil},
		{"CreateMaterializedView", "POST", "/v1/materialized_view/lnc$ns$mv/create", `{}`, false, nil},
		{"CreateTableIndex", "POST", tbl + "/create_index", `{"column":"vec","index_type":"IVF_FLAT","name":"v2_idx"}`, true, []string{"transaction_id"}},
		{"CreateTableScalarIndex", "POST", tbl + "/create_scalar_index", `{"column":"text","index_type":"BITMAP","name":"t2_idx"}`, true, []string{"transaction_id"}},
		{"ListTableIndices", "POST", tbl + "/index/list", `{}`, true, []string{"indexes"}},
		{"DescribeTableIndexStats", "POST", tbl + "/index/id_idx/stats", `{}`, true, []string{"index_type", "num_indexed_rows", "num_unindexed_rows", "num_indices"}},
		{"DropTableIndex", "POST", tbl + "/index/id_idx/drop", ``, true, []string{"transaction_id"}},
		{"ListTableTags", "POST", tbl + "/tags/list", `{}`, true, []string{"tags"}},
		{"GetTableTagVersion", "POST", tbl + "/tags/version", `{"tag":"prod"}`, true, []string{"version"}},
		{"DeclareTable", "POST", "/v1/table/lnc$ns$t4/declare", `{}`, true, []string{"location"}},
		{"CreateTableTag", "POST", tbl + "/tags/create", `{"tag":"new","version":2}`, true, nil},
		{"DeleteTableTag", "POST", tbl + "/tags/delete", `{"tag":"new"}`, true, nil},
		{"UpdateTableTag", "POST", tbl + "/tags/update", `{"tag":"prod","version":2}`, true, nil},
		{"ListTableBranches", "POST", tbl + "/branches/list", `{}`, false, nil},
		{"CreateTableBranch", "POST", tbl + "/branches/create", `{}`, false, nil},
		{"DeleteTableBranch", "POST", tbl + "/branches/delete", `{}`, false, nil},
		{"DescribeTransaction", "POST", "/v1/transaction/tx1/describe", `{}`, false, nil},
		{"AlterTransaction", "POST", "/v1/transaction/tx1/alter", `{}`, false, nil},
	}
	// GetTableTagVersion and UpdateTableTag need a tag made before them.
	e.must("POST", tbl+"/tags/create", `{"tag":"prod","version":1}`)

	var report strings.Builder
	fmt.Fprintf(&report, "\n%-27s %-6s %-48s %-6s %s\n", "operation", "method", "path", "status", "result")
	served := 0
	for _, o := range ops {
		var status int
		ok := t.Run(o.id, func(t *testing.T) {
			r := e.do(o.method, o.path, e.rw, []byte(o.body))
			status = r.status
			if !o.served {
				if r.status != 406 {
					t.Fatalf("%s %s = %d, want 406: %s", o.method, o.path, r.status, r.body)
				}
				m := r.json(t)
				if code, _ := m["code"].(float64); code != 0 {
					t.Errorf("code %v, want 0", m["code"])
				}
				for _, f := range []string{"error", "detail", "instance"} {
					if v, _ := m[f].(string); v == "" {
						t.Errorf("unsupported body lacks %q: %s", f, r.body)
					}
				}
				return
			}
			if r.status != 200 {
				t.Fatalf("%s %s = %d, want 200: %s", o.method, o.path, r.status, r.body)
			}
			if len(o.keys) > 0 {
				m := r.json(t)
				for _, k := range o.keys {
					if _, ok := m[k]; !ok {
						t.Errorf("body lacks %q: %s", k, r.body)
					}
				}
			}
		})
		result := "unsupported (406, code 0)"
		if o.served {
			result = "served"
			served++
		}
		if !ok {
			result = "FAIL"
		}
		fmt.Fprintf(&report, "%-27s %-6s %-48s %-6d %s\n", o.id, o.method, o.path, status, result)
	}
	fmt.Fprintf(&report, "%d of %d operations served\n", served, len(ops))
	t.Log(report.String())
}
