package authz_test

import (
	"context"
	"net/http"
	"net/url"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

const (
	read     = identity.Read
	write    = identity.Write
	maintain = identity.Maintain
	manage   = identity.Manage
)

// surfaces lists every route of every surface with what it needs. Routes
// that would destroy what later rows use (drops, deregisters) come last in
// their surface and aim at the table "doomed".
func surfaces(w *world) []surface {
	return []surface{
		{name: "lance", routes: lanceRoutes(), do: restDo(func(w *world) http.Handler { return w.lance }, ""), refused: lanceRefused},
		{name: "taskapi", routes: taskRoutes(), do: restDo(func(w *world) http.Handler { return w.tasks }, "lnc.localhost"), refused: lanceRefused},
		{name: "iceberg", routes: icebergRoutes(), do: restDo(func(w *world) http.Handler { return w.iceberg }, ""), refused: icebergRefused},
		{name: "s3tables", routes: s3Routes(w), do: s3Do, refused: s3Refused},
		{name: "console", routes: consoleRoutes(), do: consoleDo, refused: consoleRefused},
	}
}

func lanceRoutes() []route {
	t := "lnc/ns/t"
	return []route{
		r("POST", "/v1/namespace/lnc$ns$new/create", `{}`, on(manage, "lnc/ns.new")),
		r("POST", "/v1/namespace/newbucket/create", `{}`, on(manage, "newbucket")),
		r("GET", "/v1/namespace/%24/list", "", authenticated),
		r("POST", "/v1/namespace/%24/list", `{}`, authenticated),
		r("GET", "/v1/namespace/lnc/list", "", seeing("lnc")),
		r("GET", "/v1/namespace/lnc$ns/list", "", seeing("lnc/ns")),
		r("POST", "/v1/namespace/lnc$ns/describe", `{}`, seeing("lnc/ns")),
		r("POST", "/v1/namespace/lnc/describe", `{}`, seeing("lnc")),
		r("POST", "/v1/namespace/elsewhere/describe", `{}`, seeing("elsewhere")),
		r("POST", "/v1/namespace/lnc$ns/exists", `{}`, seeing("lnc/ns")),
		r("POST", "/v1/namespace/lnc$gone/drop", `{}`, on(manage, "lnc/gone")),
		r("POST", "/v1/namespace/lnc/drop", `{}`, on(manage, "*")),
		r("GET", "/v1/namespace/lnc$ns/table/list", "", seeing("lnc/ns")),
		r("POST", "/v1/namespace/lnc$ns/table/list", `{}`, seeing("lnc/ns")),
		r("GET", "/v1/table", "", authenticated),
		r("POST", "/v1/table/lnc$ns$new/declare", `{}`, on(manage, "lnc/ns/new")),
		r("POST", "/v1/table/lnc$ns$reg/register", `{"location":"nowhere"}`, on(manage, "lnc/ns/reg")),
		r("POST", "/v1/table/lnc$ns$t/describe", `{}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$nope/describe", `{}`, on(read, "lnc/ns/nope")),
		r("POST", "/v1/table/elsewhere$ns$t/describe", `{}`, on(read, "elsewhere/ns/t")),
		r("POST", "/v1/table/lnc$ns$t/exists", `{}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$ghost/rename", `{"new_table_name":"ghost2"}`, on(manage, "lnc/ns/ghost"), on(manage, "lnc/ns")),
		r("POST", "/v1/table/lnc$ns$t/version/list", `{}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$t/version/describe", `{"version":1}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$t/version/create", `{"version":1,"manifest_path":"x"}`, on(write, t)),
		r("POST", "/v1/table/lnc$ns$t/version/delete", `{"ranges":[{"start_version":1,"end_version":2}]}`, on(write, t)),
		r("POST", "/v1/table/version/batch-create", `{"entries":[{"id":["lnc","ns","t"],"version":1,"manifest_path":"x"}]}`, on(write, t)),
		r("POST", "/v1/table/lnc$ns$t/tags/list", `{}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$t/tags/version", `{"tag":"v1"}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$t/tags/create", `{"tag":"v1","version":1}`, on(write, t)),
		r("POST", "/v1/table/lnc$ns$t/tags/update", `{"tag":"v1","version":1}`, on(write, t)),
		r("POST", "/v1/table/lnc$ns$t/tags/delete", `{"tag":"v1"}`, on(write, t)),
		r("POST", "/v1/table/lnc$ns$t/restore", `{"version":1}`, on(write, t)),
		r("POST", "/v1/table/lnc$ns$t/stats", `{}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$t/count_rows", `{}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$t/index/list", `{}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$t/index/id_idx/stats", `{}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$t/create_index", `{"column":"id","index_type":"BTREE"}`, on(maintain, t)),
		r("POST", "/v1/table/lnc$ns$t/create_scalar_index", `{"column":"id","index_type":"BTREE"}`, on(maintain, t)),
		r("POST", "/v1/table/lnc$ns$t/index/id_idx/drop", "", on(maintain, t)),
		r("POST", "/v1/table/lnc$ns$t/cleanup_plan", `{"before_ms":1}`, on(read, t)),
		r("POST", "/v1/table/lnc$ns$gone/undrop", `{}`, on(manage, "lnc/ns/gone")),
		r("POST", "/v1/table/lnc$ns$t/query", `{}`, authenticated),
		r("POST", "/v1/table/lnc$ns$doomed/deregister", `{}`, on(manage, "lnc/ns/doomed")),
		r("POST", "/v1/table/lnc$ns$doomed/drop", `{}`, on(manage, "lnc/ns/doomed")),
	}
}

func taskRoutes() []route {
	base := "/lance/oss/v1/table/ns$t"
	t := "lnc/ns/t"
	return []route{
		r("POST", base+"/compact", `{}`, on(maintain, t)),
		r("POST", base+"/create_scalar_index", `{"column":"id"}`, on(maintain, t)),
		r("POST", base+"/create_vector_index", `{"column":"v"}`, on(maintain, t)),
		r("POST", base+"/optimize_indices", `{}`, on(maintain, t)),
		r("POST", base+"/cleanup", `{}`, on(maintain, t)),
		r("GET", base+"/tasks", "", on(read, t)),
		r("GET", base+"/tasks/nope", "", on(read, t)),
		r("DELETE", base+"/tasks/nope", "", on(maintain, t)),
		r("POST", "/lance/oss/v1/table/ns$other/compact", `{}`, on(maintain, "lnc/ns/other")),
	}
}

func icebergRoutes() []route {
	ns := "/v1/ice/namespaces/ns"
	t, other := ns+"/tables/t", "ice/ns/t"
	return []route{
		r("GET", "/v1/config?warehouse=ice", "", seeing("ice")),
		r("GET", "/v1/config?warehouse=elsewhere", "", seeing("elsewhere")),
		r("GET", "/v1/floe/tables", "", authenticated),
		r("GET", "/v1/ice/namespaces", "", seeing("ice")),
		r("POST", "/v1/ice/namespaces", `{"namespace":["ns","new"]}`, on(manage, "ice/ns.new")),
		r("GET", ns, "", seeing("ice/ns")),
		r("HEAD", ns, "", seeing("ice/ns")),
		r("DELETE", "/v1/ice/namespaces/gone", "", on(manage, "ice/gone")),
		r("POST", ns+"/properties", `{"updates":{"a":"b"}}`, on(manage, "ice/ns")),
		r("GET", ns+"/tables", "", seeing("ice/ns")),
		r("POST", ns+"/tables", `{"name":"new","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":false}]}}`, on(manage, "ice/ns/new")),
		r("GET", t, "", on(read, other)),
		r("HEAD", t, "", on(read, other)),
		r("GET", ns+"/tables/nope", "", on(read, "ice/ns/nope")),
		r("POST", t, `{"requirements":[{"type":"assert-table-uuid","uuid":"00000000-0000-0000-0000-000000000000"}],"updates":[]}`, on(write, other)),
		r("POST", t+"/metrics", `{}`, on(read, other)),
		r("GET", t+"/credentials", "", on(read, other)),
		r("POST", t+"/plan", `{}`, on(read, other)),
		r("GET", t+"/plan/nope", "", on(read, other)),
		r("DELETE", t+"/plan/nope", "", on(read, other)),
		r("POST", t+"/tasks", `{"plan-task":"nope"}`, on(read, other)),
		r("POST", ns+"/register", `{"name":"reg","metadata-location":"nowhere"}`, on(manage, "ice/ns/reg")),
		r("POST", ns+"/undrop", `{"name":"gone"}`, on(manage, "ice/ns/gone")),
		r("POST", "/v1/ice/tables/rename", `{"source":{"namespace":["ns"],"name":"ghost"},"destination":{"namespace":["ns"],"name":"ghost2"}}`,
			on(manage, "ice/ns/ghost"), on(manage, "ice/ns")),
		r("POST", "/v1/ice/transactions/commit", `{"table-changes":[{"identifier":{"namespace":["ns"],"name":"t"},"requirements":[{"type":"assert-table-uuid","uuid":"00000000-0000-0000-0000-000000000000"}],"updates":[]}]}`,
			on(write, other)),
		r("GET", ns+"/views", "", seeing("ice/ns")),
		r("POST", ns+"/views", `{"name":"v","schema":{"type":"struct","schema-id":0,"fields":[]},"view-version":{"version-id":1,"timestamp-ms":1,"schema-id":0,"summary":{},"representations":[],"default-namespace":["ns"]}}`,
			on(manage, "ice/ns/v")),
		r("GET", ns+"/views/nope", "", on(read, "ice/ns/nope")),
		r("HEAD", ns+"/views/nope", "", on(read, "ice/ns/nope")),
		r("POST", ns+"/views/nope", `{"requirements":[],"updates":[]}`, on(write, "ice/ns/nope")),
		r("DELETE", ns+"/views/nope", "", on(manage, "ice/ns/nope")),
		r("POST", "/v1/ice/views/rename", `{"source":{"namespace":["ns"],"name":"ghost"},"destination":{"namespace":["ns"],"name":"ghost2"}}`,
			on(manage, "ice/ns/ghost"), on(manage, "ice/ns")),
		r("POST", ns+"/register-view", `{"name":"rv","metadata-location":"nowhere"}`, on(manage, "ice/ns/rv")),
		r("POST", ns+"/tables/t/unregister", "", authenticated),
		r("GET", ns+"/functions", "", authenticated),
		r("DELETE", ns+"/tables/doomed", "", on(manage, "ice/ns/doomed")),
	}
}

func s3Routes(w *world) []route {
	arn := func(b string) string {
		return url.PathEscape("arn:aws:s3tables:" + s3Region + ":" + s3Account + ":bucket/" + b)
	}
	ice := arn("ice")
	tb, err := w.store.GetTable(context.Background(), catalog.TableRef{Bucket: "ice", Namespace: []string{"ns"}, Name: "t"})
	if err != nil {
		panic(err)
	}
	tableARN := url.PathEscape("arn:aws:s3tables:" + s3Region + ":" + s3Account + ":bucket/ice/table/" + tb.ID)
	tbl := "/tables/" + ice + "/ns/t"
	t := "ice/ns/t"
	policy := `{"resourcePolicy":"{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":{\"AWS\":\"user:someone\"},\"Action\":\"s3tables:GetTable\"}]}"}`
	return []route{
		r("PUT", "/buckets", `{"name":"newbucket"}`, on(manage, "newbucket")),
		r("GET", "/buckets", "", authenticated),
		r("GET", "/buckets/"+ice, "", seeing("ice")),
		r("GET", "/buckets/"+arn("elsewhere"), "", seeing("elsewhere")),
		r("GET", "/buckets/"+ice+"/maintenance", "", seeing("ice")),
		r("PUT", "/buckets/"+ice+"/maintenance/icebergUnreferencedFileRemoval", `{"value":{"status":"enabled"}}`, on(maintain, "ice")),
		r("GET", "/buckets/"+ice+"/encryption", "", seeing("ice")),
		r("PUT", "/buckets/"+ice+"/encryption", `{"encryptionConfiguration":{"sseAlgorithm":"AES256"}}`, on(manage, "ice")),
		r("DELETE", "/buckets/"+ice+"/encryption", "", on(manage, "ice")),
		r("GET", "/buckets/"+ice+"/policy", "", on(read, "ice")),
		r("PUT", "/buckets/"+ice+"/policy", policy, on(manage, "ice")),
		r("DELETE", "/buckets/"+ice+"/policy", "", on(manage, "ice")),
		r("PUT", "/namespaces/"+ice, `{"namespace":["new2"]}`, on(manage, "ice/new2")),
		r("GET", "/namespaces/"+ice, "", seeing("ice")),
		r("GET", "/namespaces/"+ice+"/ns", "", seeing("ice/ns")),
		r("DELETE", "/namespaces/"+ice+"/gone", "", on(manage, "ice/gone")),
		r("PUT", "/tables/"+ice+"/ns", `{"name":"new3","format":"ICEBERG"}`, on(manage, "ice/ns/new3")),
		r("GET", "/tables/"+ice, "", seeing("ice")),
		r("GET", "/tables/"+ice+"?namespace=ns", "", seeing("ice")),
		r("GET", "/get-table?tableBucketARN="+ice+"&namespace=ns&name=t", "", on(read, t)),
		r("GET", "/get-table?tableArn="+tableARN, "", on(read, t)),
		r("PUT", "/tables/"+ice+"/ns/ghost/rename", `{"newName":"ghost2"}`, on(manage, "ice/ns/ghost"), on(manage, "ice/ns/ghost2")),
		r("GET", tbl+"/metadata-location", "", on(read, t)),
		r("PUT", tbl+"/metadata-location", `{"metadataLocation":"nowhere","versionToken":"x"}`, on(write, t)),
		r("GET", tbl+"/maintenance", "", on(read, t)),
		r("PUT", tbl+"/maintenance/icebergCompaction", `{"value":{"status":"enabled"}}`, on(maintain, t)),
		r("GET", tbl+"/maintenance-job-status", "", on(read, t)),
		r("GET", tbl+"/encryption", "", on(read, t)),
		r("GET", tbl+"/policy", "", on(read, t)),
		r("PUT", tbl+"/policy", policy, on(manage, t)),
		r("DELETE", tbl+"/policy", "", on(manage, t)),
		r("GET", "/tag/"+ice, "", on(read, "ice")),
		r("POST", "/tag/"+ice, `{"tags":{"k":"v"}}`, on(manage, "ice")),
		r("DELETE", "/tag/"+ice+"?tagKeys=k", "", on(manage, "ice")),
		r("GET", "/tag/"+tableARN, "", on(read, t)),
		r("POST", "/tag/"+tableARN, `{"tags":{"k":"v"}}`, on(manage, t)),
		r("GET", "/table-bucket-replication?tableBucketARN="+ice, "", authenticated),
		r("GET", "/buckets/"+ice+"/metrics", "", authenticated),
		r("DELETE", "/tables/"+ice+"/ns/doomed", "", on(manage, "ice/ns/doomed")),
		r("DELETE", "/buckets/"+arn("elsewhere"), "", on(manage, "*")),
	}
}

func form(v url.Values) string { return v.Encode() }

func consoleRoutes() []route {
	tb := "/buckets/lnc/namespaces/ns/tables/t"
	t := "lnc/ns/t"
	return []route{
		r("GET", "/buckets", "", authenticated),
		r("POST", "/buckets", form(url.Values{"name": {"newbucket"}, "format": {"LANCE"}}), on(manage, "newbucket")),
		r("GET", "/buckets/lnc", "", seeing("lnc")),
		r("GET", "/buckets/elsewhere", "", seeing("elsewhere")),
		r("POST", "/buckets/lnc/namespaces", form(url.Values{"namespace": {"ns.new"}}), on(manage, "lnc/ns.new")),
		r("GET", "/buckets/lnc/namespaces/ns", "", seeing("lnc/ns")),
		r("POST", "/buckets/lnc/namespaces/ns/tables", form(url.Values{"name": {"new"}}), on(manage, "lnc/ns/new")),
		r("GET", "/buckets/ice/namespaces/ns/create-table", "", seeing("ice/ns")),
		r("POST", "/buckets/ice/namespaces/ns/create-table", form(url.Values{"name": {"made"}, "col_name": {"id"}, "col_type": {"long"}}), on(manage, "ice/ns/made")),
		r("POST", "/buckets/lnc/namespaces/ns/properties", form(url.Values{"op": {"set"}, "key": {"owner"}, "value": {"ops"}}), on(manage, "lnc/ns")),
		r("POST", tb+"/properties", form(url.Values{"op": {"set"}, "key": {"owner"}, "value": {"ops"}}), on(write, t)),
		r("GET", tb, "", on(read, t)),
		r("GET", "/buckets/lnc/namespaces/ns/tables/nope", "", on(read, "lnc/ns/nope")),
		r("GET", "/buckets/ice/namespaces/ns/views/nope", "", on(read, "ice/ns/nope")),
		r("GET", tb+"/data", "", on(read, t)),
		r("GET", tb+"/maintenance", "", on(read, t)),
		r("POST", tb+"/maintenance/tasks", form(url.Values{"type": {"compact"}}), on(maintain, t)),
		r("POST", tb+"/maintenance/tasks/nope/delete", "", on(maintain, t)),
		r("POST", "/buckets/ice/namespaces/ns/tables/t/maintenance/iceberg", form(url.Values{"job_type": {"iceberg_compact"}}), on(maintain, "ice/ns/t")),
		r("GET", tb+"/compact", "", on(read, t)),
		r("POST", tb+"/compact", "", on(maintain, t)),
		r("GET", tb+"/fix", "", on(read, t)),
		r("POST", tb+"/fix", "", on(maintain, t)),
		r("GET", tb+"/connect", "", on(read, t)),
		r("POST", tb+"/connect/key", "", on(manage, t)),
		r("GET", "/buckets/lnc/access", "", seeing("lnc")),
		r("GET", "/buckets/lnc/namespaces/ns/access", "", seeing("lnc/ns")),
		r("GET", tb+"/access", "", on(read, t)),
		r("POST", tb+"/access", form(url.Values{"grantee_kind": {"group"}, "grantee": {"g"}, "privilege": {"read"}}), on(manage, t)),
		r("POST", tb+"/access/remove", form(url.Values{"grantee_kind": {"group"}, "grantee": {"g"}, "privilege": {"read"}}), on(manage, t)),
		r("POST", "/buckets/lnc/namespaces/ns/access", form(url.Values{"grantee_kind": {"group"}, "grantee": {"g"}, "privilege": {"read"}}), on(manage, "lnc/ns")),
		r("POST", "/buckets/lnc/access", form(url.Values{"grantee_kind": {"group"}, "grantee": {"g"}, "privilege": {"read"}}), on(manage, "lnc")),
		r("POST", tb+"/protect", form(url.Values{"on": {"false"}}), on(manage, t)),
		r("POST", "/buckets/lnc/namespaces/ns/protect", form(url.Values{"on": {"false"}}), on(manage, "lnc/ns")),
		r("POST", "/buckets/lnc/protect", form(url.Values{"on": {"false"}}), on(manage, "lnc")),
		r("POST", "/buckets/lnc/settings", form(url.Values{"soft_delete_hold": {"7d"}}), on(manage, "lnc")),
		r("POST", "/buckets/lnc/deleted/nope/undrop", "", seeing("lnc")),
		r("POST", "/buckets/lnc/deleted/nope/purge", "", seeing("lnc")),
		r("GET", "/connect", "", authenticated),
		r("GET", "/api-keys", "", authenticated),
		r("POST", "/api-keys", form(url.Values{"name": {"k"}, "role": {"readonly"}}), on(manage, "*")),
		r("POST", "/api-keys", form(url.Values{"name": {"k"}, "role": {"readonly"}, "bucket": {"lnc"}}), on(manage, "lnc")),
		r("POST", "/api-keys/k_nope/revoke", "", on(manage, "*")),
		r("GET", "/users", "", on(manage, "*")),
		r("POST", "/users", form(url.Values{"username": {"newcomer"}, "role": {"readonly"}}), on(manage, "*")),
		r("POST", "/users/nobody/role", form(url.Values{"role": {"readonly"}}), on(manage, "*")),
		r("POST", "/users/nobody/disable", "", on(manage, "*")),
		r("POST", "/users/nobody/enable", "", on(manage, "*")),
		r("POST", "/users/nobody/password", "", on(manage, "*")),
		r("GET", "/workers", "", authenticated),
		r("POST", "/workers/tokens", form(url.Values{"name": {"w"}}), on(manage, "*")),
		r("POST", "/workers/tokens/nope/revoke", "", on(manage, "*")),
		r("GET", "/job-types/nope", "", authenticated),
		r("POST", "/job-types/nope", "", on(maintain, "*")),
		r("POST", "/job-types/nope/detect", "", on(maintain, "*")),
		r("POST", "/job-types/nope/run", "", on(maintain, "*")),
		r("GET", "/jobs", "", authenticated),
		r("GET", "/jobs/nope", "", authenticated),
		r("POST", "/jobs/nope/cancel", "", authenticated),
		r("POST", "/jobs/nope/expire", "", authenticated),
		r("POST", "/buckets/lnc/namespaces/ns/tables/doomed/deregister", "", on(manage, "lnc/ns/doomed")),
		r("POST", "/buckets/lnc/namespaces/ns/tables/doomed/drop", form(url.Values{"confirm": {"doomed"}}), on(manage, "lnc/ns/doomed")),
		r("POST", "/buckets/lnc/namespaces/ns/delete", "", on(manage, "lnc/ns")),
		r("POST", "/buckets/elsewhere/delete", "", on(manage, "*")),
	}
}
