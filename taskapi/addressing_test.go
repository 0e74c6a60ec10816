package taskapi

import (
	"crypto/md5"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

func TestHostNamesTheBucket(t *testing.T) {
	e := newEnv(t, envOpts{})
	bad := []string{"127.0.0.1", "127.0.0.1:9101", "localhost", "localhost:9101", "[::1]:9101", "::1", ".localhost"}
	for _, host := range bad {
		t.Run(host, func(t *testing.T) {
			eb := e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact", host: host}).
				wantError(t, 400, "InvalidInput", 13)
			if !strings.Contains(eb.Detail, "a bucket host is required, e.g. mybucket.localhost") {
				t.Fatalf("detail %q", eb.Detail)
			}
		})
	}
	for _, host := range []string{"mybucket.localhost", "mybucket.localhost:9101", "MyBucket.example.com", "mybucket.127.0.0.1.nip.io:80"} {
		t.Run(host, func(t *testing.T) {
			e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact", host: host}).wantOK(t, e.table.ID, nil)
		})
	}
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact", host: "nobucket.localhost"}).
		wantError(t, 404, "TableNotFound", 4)
}

func TestDelimiterAndID(t *testing.T) {
	e := newEnv(t, envOpts{})
	cases := []struct {
		name   string
		path   string
		status int
	}{
		{"default $", "/table/ns$tbl/tasks", 200},
		{"encoded $", "/table/ns%24tbl/tasks", 200},
		{"empty delimiter is $", "/table/ns$tbl/tasks?delimiter=", 200},
		{"dot", "/table/ns.tbl/tasks?delimiter=.", 200},
		{"several characters", "/table/ns%3A%3Atbl/tasks?delimiter=%7C%7C", 400}, // "::" in the id, "||" delimiter: one part
		{"multi-char", "/table/ns||tbl/tasks?delimiter=||", 200},
		{"encoded multi-char", "/table/ns%7C%7Ctbl/tasks?delimiter=%7C%7C", 200},
		{"slash refused", "/table/ns%2Ftbl/tasks?delimiter=%2F", 400},
		{"colon refused", "/table/ns:tbl/tasks?delimiter=:", 400},
		{"dash refused", "/table/ns-tbl/tasks?delimiter=-", 400},
		{"dash inside refused", "/table/nsa-btbl/tasks?delimiter=a-b", 400},
		{"one part", "/table/ns/tasks", 400},
		{"three parts", "/table/ns$tbl$x/tasks", 400},
		{"empty namespace", "/table/$tbl/tasks", 400},
		{"empty table", "/table/ns$/tasks", 400},
		{"only delimiter", "/table/$/tasks", 400},
		{"wrong delimiter", "/table/ns$tbl/tasks?delimiter=.", 400},
		{"slash in a name", "/table/n%2Fs$tbl/tasks", 400},
		{"unknown table", "/table/ns$nope/tasks", 404},
		{"unknown namespace", "/table/nope$tbl/tasks", 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if strings.Contains(path, "?") {
				path += "&task_type=lance_compact"
			} else {
				path += "?task_type=lance_compact"
			}
			r := e.do(call{method: "GET", path: path})
			switch c.status {
			case 200:
				r.wantOK(t, e.table.ID, nil)
			case 400:
				r.wantError(t, 400, "InvalidInput", 13)
			case 404:
				r.wantError(t, 404, "TableNotFound", 4)
			}
		})
	}
	// The delimiter rules hold on every operation, not only list.
	for _, c := range []call{
		{method: "POST", path: "/table/ns:tbl/compact?delimiter=:"},
		{method: "POST", path: "/table/ns:tbl/cleanup?delimiter=:", body: `{"older_than":"1d"}`},
		{method: "POST", path: "/table/ns:tbl/create_scalar_index?delimiter=:"},
		{method: "POST", path: "/table/ns:tbl/create_vector_index?delimiter=:"},
		{method: "POST", path: "/table/ns:tbl/optimize_indices?delimiter=:"},
		{method: "GET", path: "/table/ns:tbl/tasks/" + strings.Repeat("a", 32) + "?delimiter=:"},
		{method: "DELETE", path: "/table/ns:tbl/tasks/" + strings.Repeat("a", 32) + "?delimiter=:"},
	} {
		e.do(c).wantError(t, 400, "InvalidInput", 13)
		c.path = strings.Replace(strings.Replace(c.path, ":", ".", 1), "=:", "=.", 1)
		if r := e.do(c); r.status == 400 && strings.Contains(string(r.body), "delimiter") {
			t.Fatalf("%s %s refused its delimiter: %s", c.method, c.path, r.body)
		}
	}
}

func TestTableChecks(t *testing.T) {
	e := newEnv(t, envOpts{})
	ice := e.table2("mixed", catalog.FormatUnset, "ns", "ice", catalog.FormatIceberg)
	_ = ice
	e.do(call{method: "POST", path: "/table/ns$ice/compact", host: "mixed.localhost"}).wantError(t, 400, "InvalidInput", 13)
	e.do(call{method: "GET", path: "/table/ns$ice/tasks?task_type=lance_compact", host: "mixed.localhost"}).wantError(t, 400, "InvalidInput", 13)
	e.lanceTable("mybucket", "ns", "hidden")
	if _, err := e.store.DeregisterTable(t.Context(), catalog.TableRef{Bucket: "mybucket", Namespace: []string{"ns"}, Name: "hidden"}); err != nil {
		t.Fatalf("DeregisterTable: %v", err)
	}
	e.do(call{method: "POST", path: "/table/ns$hidden/compact"}).wantError(t, 404, "TableNotFound", 4)
	e.do(call{method: "POST", path: "/table/ns$tbl/compact", host: "bad_name.localhost"}).wantError(t, 404, "TableNotFound", 4)
}

func TestTasksFollowTheTableID(t *testing.T) {
	e := newEnv(t, envOpts{})
	id := e.submit("compact", "")
	ref := catalog.TableRef{Bucket: "mybucket", Namespace: []string{"ns"}, Name: "tbl"}
	if _, err := e.store.DropTable(t.Context(), ref); err != nil {
		t.Fatalf("DropTable: %v", err)
	}
	again := e.lanceTable("mybucket", "ns", "tbl")
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks/" + id}).wantError(t, 404, "TaskNotFound", 10000)
	var list listBody
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact"}).wantOK(t, again.ID, &list)
	if len(list.Tasks) != 0 || list.NextMarker != "" {
		t.Fatalf("re-created table lists %d tasks", len(list.Tasks))
	}
}

func TestAuth(t *testing.T) {
	e := newEnv(t, envOpts{})
	list := "/table/ns$tbl/tasks?task_type=lance_compact"
	cases := []struct {
		name   string
		c      call
		status int
	}{
		{"no key", call{method: "GET", path: list, key: "-"}, 401},
		{"unknown key", call{method: "GET", path: list, key: "floe_nope"}, 401},
		{"bearer", call{method: "GET", path: list, key: "-", header: map[string]string{"Authorization": "Bearer " + e.rw}}, 200},
		{"bearer lower case", call{method: "GET", path: list, key: "-", header: map[string]string{"Authorization": "bearer " + e.ro}}, 200},
		{"basic is not a key", call{method: "GET", path: list, key: "-", header: map[string]string{"Authorization": "Basic " + e.rw}}, 401},
		{"readonly reads", call{method: "GET", path: list, key: e.ro}, 200},
		{"readonly cannot submit", call{method: "POST", path: "/table/ns$tbl/compact", key: e.ro}, 403},
		{"readonly cannot delete", call{method: "DELETE", path: "/table/ns$tbl/tasks/" + strings.Repeat("a", 32), key: e.ro}, 403},
		{"other bucket cannot read", call{method: "GET", path: list, key: e.other}, 403},
		{"other bucket cannot submit", call{method: "POST", path: "/table/ns$tbl/compact", key: e.other}, 403},
		{"readwrite submits", call{method: "POST", path: "/table/ns$tbl/compact"}, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(c.c)
			switch c.status {
			case 200:
				r.wantOK(t, e.table.ID, nil)
			case 401:
				r.wantError(t, 401, "Unauthenticated", 16)
			case 403:
				r.wantError(t, 403, "PermissionDenied", 15)
			}
		})
	}
	anon := newEnv(t, envOpts{anonymous: true})
	anon.do(call{method: "POST", path: "/table/ns$tbl/compact", key: "-"}).wantOK(t, anon.table.ID, nil)
	// Anonymous mode lets key-less requests through, never a wrong key.
	anon.do(call{method: "POST", path: "/table/ns$tbl/compact", key: "floe_0000000000000000000000000000000000000000"}).wantError(t, 401, "Unauthenticated", 16)
}

func TestContentMD5(t *testing.T) {
	e := newEnv(t, envOpts{})
	body := `{"older_than": "7d"}`
	sum := md5.Sum([]byte(body))
	good := base64.StdEncoding.EncodeToString(sum[:])
	empty := md5.Sum(nil)
	cases := []struct {
		name   string
		c      call
		status int
	}{
		{"matches", call{method: "POST", path: "/table/ns$tbl/cleanup", body: body, header: map[string]string{"Content-MD5": good}}, 200},
		{"absent", call{method: "POST", path: "/table/ns$tbl/cleanup", body: body}, 200},
		{"mismatch", call{method: "POST", path: "/table/ns$tbl/cleanup", body: body + " ", header: map[string]string{"Content-MD5": good}}, 400},
		{"not base64", call{method: "POST", path: "/table/ns$tbl/cleanup", body: body, header: map[string]string{"Content-MD5": "%%%"}}, 400},
		{"hex not base64", call{method: "POST", path: "/table/ns$tbl/cleanup", body: body, header: map[string]string{"Content-MD5": "0123456789abcdef0123456789abcdef"}}, 400},
		{"empty header", call{method: "POST", path: "/table/ns$tbl/compact", header: map[string]string{"Content-MD5": ""}}, 400},
		{"empty body matches", call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_cleanup",
			header: map[string]string{"Content-MD5": base64.StdEncoding.EncodeToString(empty[:])}}, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "empty header" {
				// net/http drops a header set to "" only when unset; send it raw.
				c.c.header["Content-MD5"] = " "
			}
			r := e.do(c.c)
			if c.status == 200 {
				r.wantOK(t, e.table.ID, nil)
				return
			}
			eb := r.wantError(t, 400, "InvalidInput", 13)
			if !strings.Contains(eb.Detail, "Content-MD5") {
				t.Fatalf("detail %q", eb.Detail)
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	e := newEnv(t, envOpts{})
	r := e.do(call{method: "GET", path: "/table/ns$tbl/compact"})
	r.wantError(t, http.StatusMethodNotAllowed, "InvalidInput", 13)
	if r.header.Get("Allow") != "POST" {
		t.Fatalf("Allow = %q", r.header.Get("Allow"))
	}
	e.do(call{method: "POST", path: "/table/ns$tbl/tasks"}).wantError(t, http.StatusMethodNotAllowed, "InvalidInput", 13)
	e.do(call{method: "POST", path: "/table/ns$tbl/explode"}).wantError(t, 404, "InvalidInput", 13)
	e.do(call{method: "GET", path: "/tables"}).wantError(t, 404, "InvalidInput", 13)
	big := `{"older_than": "7d", "pad": "` + strings.Repeat("x", maxBodyBytes) + `"}`
	e.do(call{method: "POST", path: "/table/ns$tbl/cleanup", body: big}).wantError(t, 400, "InvalidInput", 13)
}
