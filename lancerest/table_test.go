package lancerest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// writeVersions fakes what the Lance SDK leaves in _versions/.
func writeVersions(t *testing.T, location string, names ...string) {
	t.Helper()
	dir := filepath.Join(location, "_versions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("m"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func v2(v uint64) string { return fmt.Sprintf("%020d.manifest", uint64(math.MaxUint64)-v) }

func TestTableOperations(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	loc := filepath.Join(e.warehouse, "lnc", "ns", "t1.lance")
	uri := "file://" + loc // locations are answered in canonical form
	e.run(t, []step{
		{name: "declare", path: "/v1/table/lnc$ns$t1/declare", body: `{"id":["lnc","ns","t1"]}`, status: 200, code: -1,
			want: []string{`"location":` + jsonString(uri), `"storage_options":{}`, `"managed_versioning":false`}},
		{name: "re-declare while only declared", path: "/v1/table/lnc$ns$t1/declare", status: 200, code: -1, want: []string{jsonString(uri)}},
		{name: "declare with floe's location", path: "/v1/table/lnc$ns$t1/declare", body: `{"location":` + jsonString("file://"+loc) + `}`, status: 200, code: -1},
		{name: "declare elsewhere", path: "/v1/table/lnc$ns$t9/declare", body: `{"location":"/tmp/elsewhere"}`, status: 400, code: 13},
		{name: "declare two-name id", path: "/v1/table/lnc$t1/declare", status: 400, code: 13},
		{name: "declare missing namespace", path: "/v1/table/lnc$nope$t1/declare", status: 404, code: 1},
		{name: "declare missing bucket", path: "/v1/table/nob$ns$t1/declare", status: 404, code: 1},
		{name: "declare over an iceberg table", path: "/v1/table/mix$ns$ice/declare", status: 409, code: 5},
		{name: "declare in an iceberg bucket", path: "/v1/table/icb$ns$t1/declare", status: 400, code: 13, want: []string{"Iceberg"}},
		{name: "declare readonly", path: "/v1/table/lnc$ns$t2/declare", key: "ro", status: 403, code: 15},
		{name: "declared listed", method: "GET", path: "/v1/namespace/lnc$ns/table/list", status: 200, code: -1, want: []string{`{"tables":["t1"]}`}},
		{name: "declared hidden without include_declared", method: "GET", path: "/v1/namespace/lnc$ns/table/list?include_declared=false", status: 200, code: -1, want: []string{`{"tables":[]}`}},
		{name: "describe", path: "/v1/table/lnc$ns$t1/describe", body: `{"id":["lnc","ns","t1"]}`, status: 200, code: -1,
			want: []string{`"location":` + jsonString(uri), `"storage_options":{}`, `"properties":null`}, notWant: []string{"table_uri", "is_only_declared", `"version"`}},
		{name: "describe check_declared", path: "/v1/table/lnc$ns$t1/describe?check_declared=true", status: 200, code: -1, want: []string{`"is_only_declared":true`}},
		{name: "describe with_table_uri in body", path: "/v1/table/lnc$ns$t1/describe", body: `{"with_table_uri":true}`, status: 200, code: -1, want: []string{`"table_uri":"file://` + filepath.ToSlash(loc)}},
		{name: "describe bad flag", path: "/v1/table/lnc$ns$t1/describe?check_declared=maybe", status: 400, code: 13},
		{name: "describe flag wrong type", path: "/v1/table/lnc$ns$t1/describe", body: `{"load_detailed_metadata":"yes"}`, status: 400, code: 13},
		{name: "describe negative version", path: "/v1/table/lnc$ns$t1/describe", body: `{"version":-1}`, status: 400, code: 13},
		{name: "describe missing", path: "/v1/table/lnc$ns$nope/describe", status: 404, code: 4},
		{name: "describe iceberg table", path: "/v1/table/mix$ns$ice/describe", status: 404, code: 4},
		{name: "exists", path: "/v1/table/lnc$ns$t1/exists", status: 200, code: -2},
		{name: "exists iceberg table", path: "/v1/table/mix$ns$ice/exists", status: 404, code: 4},
		{name: "table list in iceberg bucket", method: "GET", path: "/v1/namespace/icb$ns/table/list", status: 404, code: 1},
		{name: "table list hides iceberg tables", method: "GET", path: "/v1/namespace/mix$ns/table/list", status: 200, code: -1, want: []string{`{"tables":[]}`}},
		{name: "table list missing namespace", method: "GET", path: "/v1/namespace/lnc$nope/table/list", status: 404, code: 1},
		{name: "table list at bucket", method: "GET", path: "/v1/namespace/lnc/table/list", status: 200, code: -1, want: []string{`{"tables":[]}`}},
		{name: "table list at root", method: "GET", path: "/v1/namespace/%24/table/list", status: 200, code: -1, want: []string{`{"tables":[]}`}},
		{name: "list all tables", method: "GET", path: "/v1/table", status: 200, code: -1, want: []string{`"lnc$ns$t1"`}, notWant: []string{"ice"}},
		{name: "list all tables custom delimiter", method: "GET", path: "/v1/table?delimiter=.", status: 200, code: -1, want: []string{`"lnc.ns.t1"`}},
		{name: "list all tables without declared", method: "GET", path: "/v1/table?include_declared=false", status: 200, code: -1, notWant: []string{"t1"}},
	})

	// The SDK writes the dataset: V2 manifest names for versions 1..3.
	writeVersions(t, loc, v2(1), v2(2), v2(3))
	e.run(t, []step{
		{name: "detailed metadata", path: "/v1/table/lnc$ns$t1/describe?load_detailed_metadata=true", status: 200, code: -1,
			want: []string{`"version":3`, `"is_only_declared":false`, `"table":"t1"`, `"namespace":["lnc","ns"]`}},
		{name: "version exists", path: "/v1/table/lnc$ns$t1/describe", body: `{"version":2}`, status: 200, code: -1, want: []string{`"version":2`}},
		{name: "version missing", path: "/v1/table/lnc$ns$t1/describe", body: `{"version":9}`, status: 404, code: 11},
		{name: "declare a created table", path: "/v1/table/lnc$ns$t1/declare", status: 409, code: 5, want: []string{"already exists"}},
		{name: "created now listed without declared", method: "GET", path: "/v1/namespace/lnc$ns/table/list?include_declared=false", status: 200, code: -1, want: []string{`{"tables":["t1"]}`}},
		{name: "list all tables now includes it", method: "GET", path: "/v1/table?include_declared=false", status: 200, code: -1, want: []string{`"lnc$ns$t1"`}},

		// rename
		{name: "rename", path: "/v1/table/lnc$ns$t1/rename", body: `{"new_table_name":"t2"}`, status: 200, code: -1},
		{name: "old name gone", path: "/v1/table/lnc$ns$t1/exists", status: 404, code: 4},
		{name: "new name keeps the location", path: "/v1/table/lnc$ns$t2/describe", status: 200, code: -1, want: []string{jsonString(uri)}},
		{name: "rename without name", path: "/v1/table/lnc$ns$t2/rename", body: `{}`, status: 400, code: 13},
		{name: "rename bad name", path: "/v1/table/lnc$ns$t2/rename", body: `{"new_table_name":"bad/name"}`, status: 400, code: 13},
		{name: "rename to another bucket", path: "/v1/table/lnc$ns$t2/rename", body: `{"new_table_name":"t3","new_namespace_id":["mix","ns"]}`, status: 400, code: 13},
		{name: "rename to missing namespace", path: "/v1/table/lnc$ns$t2/rename", body: `{"new_table_name":"t3","new_namespace_id":["lnc","nope"]}`, status: 404, code: 1},
		{name: "rename into sub namespace", path: "/v1/table/lnc$ns$t2/rename", body: `{"new_table_name":"t3","new_namespace_id":["lnc","ns","sub"]}`, status: 200, code: -1},
		{name: "moved", path: "/v1/table/lnc$ns$sub$t3/exists", status: 200, code: -2},
		{name: "rename missing", path: "/v1/table/lnc$ns$t2/rename", body: `{"new_table_name":"t4"}`, status: 404, code: 4},
		{name: "declare t5", path: "/v1/table/lnc$ns$sub$t5/declare", status: 200, code: -1},
		{name: "rename onto existing", path: "/v1/table/lnc$ns$sub$t3/rename", body: `{"new_table_name":"t5"}`, status: 409, code: 5},
		{name: "rename with wrong body id", path: "/v1/table/lnc$ns$sub$t3/rename", body: `{"id":["x"],"new_table_name":"t6"}`, status: 400, code: 13},

		// deregister / register / drop
		{name: "deregister readonly", path: "/v1/table/lnc$ns$sub$t3/deregister", key: "ro", status: 403, code: 15},
		{name: "deregister", path: "/v1/table/lnc$ns$sub$t3/deregister", body: `{"id":["lnc","ns","sub","t3"]}`, status: 200, code: -1, want: []string{jsonString(uri), `"id":["lnc","ns","sub","t3"]`}},
		{name: "deregistered not found", path: "/v1/table/lnc$ns$sub$t3/describe", status: 404, code: 4, want: []string{"deregistered"}},
		{name: "deregistered not listed", method: "GET", path: "/v1/namespace/lnc$ns$sub/table/list", status: 200, code: -1, notWant: []string{"t3"}},
		{name: "deregister again", path: "/v1/table/lnc$ns$sub$t3/deregister", status: 404, code: 4},
		{name: "register needs location", path: "/v1/table/lnc$ns$sub$t3/register", body: `{}`, status: 400, code: 13},
		{name: "register outside the bucket", path: "/v1/table/lnc$ns$sub$t3/register", body: `{"location":"/etc"}`, status: 400, code: 13},
		{name: "register relative location", path: "/v1/table/lnc$ns$sub$t3/register", body: `{"location":"../x"}`, status: 400, code: 13},
		{name: "register dotdot escape", path: "/v1/table/lnc$ns$sub$t3/register", body: `{"location":` + jsonString(filepath.Join(e.warehouse, "lnc")+"/../mix/ns") + `}`, status: 400, code: 13},
		{name: "register bad mode", path: "/v1/table/lnc$ns$sub$t3/register", body: `{"location":` + jsonString(loc) + `,"mode":"merge"}`, status: 400, code: 13},
		{name: "register revives", path: "/v1/table/lnc$ns$sub$t3/register", body: `{"location":` + jsonString(loc) + `}`, status: 200, code: -1, want: []string{jsonString(uri)}},
		{name: "revived", path: "/v1/table/lnc$ns$sub$t3/exists", status: 200, code: -2},
		{name: "register existing", path: "/v1/table/lnc$ns$sub$t5/register", body: `{"location":` + jsonString(loc) + `}`, status: 409, code: 5},
		{name: "register over iceberg table", path: "/v1/table/mix$ns$ice/register", body: `{"location":` + jsonString(mkdir(t, e.warehouse, "mix", "ns", "x.lance")) + `,"mode":"overwrite"}`, status: 409, code: 5},
		{name: "register in iceberg bucket", path: "/v1/table/icb$ns$x/register", body: `{"location":` + jsonString(mkdir(t, e.warehouse, "icb", "ns", "x.lance")) + `}`, status: 400, code: 13},
		{name: "drop readonly", path: "/v1/table/lnc$ns$sub$t3/drop", key: "ro", status: 403, code: 15},
		{name: "drop", path: "/v1/table/lnc$ns$sub$t3/drop", body: `{"id":["lnc","ns","sub","t3"]}`, status: 200, code: -1, want: []string{jsonString(uri)}},
		{name: "dropped", path: "/v1/table/lnc$ns$sub$t3/exists", status: 404, code: 4},
		{name: "drop again", path: "/v1/table/lnc$ns$sub$t3/drop", status: 404, code: 4},
		{name: "drop iceberg table refused", path: "/v1/table/mix$ns$ice/drop", status: 404, code: 4},
	})
	if _, err := os.Stat(loc); !os.IsNotExist(err) {
		t.Errorf("dropped table's data still at %s (err %v)", loc, err)
	}
}

func TestDeregisterKeepsData(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	loc := filepath.Join(e.warehouse, "lnc", "ns", "keep.lance")
	e.must("POST", "/v1/table/lnc$ns$keep/declare", "")
	writeVersions(t, loc, "1.manifest", "2.manifest")
	os.MkdirAll(filepath.Join(loc, "data"), 0o755)
	os.WriteFile(filepath.Join(loc, "data", "frag.lance"), []byte("0123456789"), 0o644)
	e.must("POST", "/v1/table/lnc$ns$keep/deregister", "")
	for _, f := range []string{"_versions/1.manifest", "_versions/2.manifest", "data/frag.lance"} {
		if _, err := os.Stat(filepath.Join(loc, f)); err != nil {
			t.Errorf("%s after deregister: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(loc, ".lance-deregistered")); err == nil {
		t.Error("deregister wrote a marker into the table's directory")
	}
	r := e.must("POST", "/v1/table/lnc$ns$keep/declare", "")
	if !strings.Contains(string(r.body), jsonString("file://"+loc)) {
		t.Errorf("declare after deregister = %s, want the old location", r.body)
	}
	if b, _ := os.ReadFile(filepath.Join(loc, "data", "frag.lance")); string(b) != "0123456789" {
		t.Errorf("data changed: %q", b)
	}
	m := e.must("POST", "/v1/table/lnc$ns$keep/describe?load_detailed_metadata=true", "").json(t)
	if m["version"] != float64(2) {
		t.Errorf("V1 names: version = %v, want 2", m["version"])
	}
}

func TestListTablesPagination(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("t%02d", i)
		want = append(want, name)
		e.must("POST", "/v1/table/lnc$ns$"+name+"/declare", "")
	}
	for _, base := range []string{"/v1/namespace/lnc$ns/table/list?limit=3", "/v1/table?limit=3"} {
		var got []string
		token := ""
		for range 10 {
			path := base
			if token != "" {
				path += "&page_token=" + token
			}
			m := e.must("GET", path, "").json(t)
			for _, n := range m["tables"].([]any) {
				s := n.(string)
				got = append(got, s[strings.LastIndex(s, "$")+1:])
			}
			token, _ = m["page_token"].(string)
			if token == "" {
				break
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s paged = %v, want %v", base, got, want)
		}
	}
}

func TestParseManifestName(t *testing.T) {
	for _, c := range []struct {
		name string
		v    uint64
		ok   bool
	}{
		{"1.manifest", 1, true},
		{"42.manifest", 42, true},
		{v2(1), 1, true},
		{v2(123456), 123456, true},
		{"00000000000000000001.manifest", math.MaxUint64 - 1, true},
		{"x.manifest", 0, false},
		{"1.txn", 0, false},
		{".manifest", 0, false},
		{"-1.manifest", 0, false},
		{"99999999999999999999.manifest", 0, false}, // overflows u64
	} {
		v, ok := catalog.ParseManifestName(c.name)
		if v != c.v || ok != c.ok {
			t.Errorf("ParseManifestName(%q) = %d, %v; want %d, %v", c.name, v, ok, c.v, c.ok)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mkdir(t *testing.T, elem ...string) string {
	t.Helper()
	p := filepath.Join(elem...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
