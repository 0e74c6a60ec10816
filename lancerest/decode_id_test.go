package lancerest

import (
	"reflect"
	"strings"
	"testing"
)

func TestBodyIsPathID(t *testing.T) {
	path := []string{"bench", "ns", "t0000"}
	for _, c := range []struct {
		body string
		want bool
	}{
		{``, true},
		{" \n", true},
		{`{}`, true},
		{` { } `, true},
		{`{"id":["bench","ns","t0000"]}`, true}, // what LanceDB sends
		{"{ \"id\" : [ \"bench\" ,\n\"ns\", \"t0000\" ] }\n", true},
		{`{"id":["bench","ns"]}`, false},
		{`{"id":["bench","ns","t0000","x"]}`, false},
		{`{"id":["bench","ns","t0001"]}`, false},
		{`{"id":["bench","ns","t\u0030000"]}`, false}, // the same id, escaped: the full decoder's business
		{`{"id":["bench","ns","t0000"],"version":1}`, false},
		{`{"id":["bench","ns","t0000"]} {}`, false},
		{`{"id":["bench","ns","t0000"],}`, false},
		{`{"id":["bench","ns","t0000",]}`, false},
		{`{"id":[]}`, false},
		{`null`, false}, // allowed, but by the full decoder
		{`{"id":["bench","ns","t0000"]`, false},
	} {
		if got := bodyIsPathID([]byte(c.body), path); got != c.want {
			t.Errorf("bodyIsPathID(%q) = %v, want %v", c.body, got, c.want)
		}
	}
	if !bodyIsPathID([]byte(`{"id":[]}`), []string{}) {
		t.Error(`{"id":[]} is the root's id`)
	}
}

// FuzzBodyIsPathID: every body the fast path takes, the full decoders take
// too, with nothing in it but the path's id.
func FuzzBodyIsPathID(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"id":["a","b"]}`, ` {"id" : ["a" , "b"]} `, `{"id":["a"]}`, `{"id":["a","b"],"x":1}`, `{"id":["a","\u0062"]}`, `{"id":[]}`} {
		f.Add([]byte(s), "a$b")
	}
	f.Fuzz(func(t *testing.T, body []byte, rawPath string) {
		path := []string{}
		if rawPath != "" {
			path = strings.Split(rawPath, "$")
		}
		if !bodyIsPathID(body, path) {
			return
		}
		var id idRequest
		if e := decodeJSON(body, &id); e != nil || checkBodyID(id.ID, path) != nil {
			t.Fatalf("fast path took %q for %q; the full decoder says %v", body, path, e)
		}
		var d describeTableRequest
		if e := decodeJSON(body, &d); e != nil {
			t.Fatalf("fast path took %q; DescribeTable's decoder says %v", body, e)
		}
		if d.Version != nil || d.WithTableURI != nil || d.LoadDetailedMetadata != nil || d.CheckDeclared != nil || d.VendCredentials != nil {
			t.Fatalf("fast path took %q, which sets %+v", body, d)
		}
	})
}

// FuzzDescribeOnePass: every body the one-pass decoder takes, the full
// decoder (jsonstrict.Check, encoding/json, the id and version checks)
// takes too, with the same request.
func FuzzDescribeOnePass(f *testing.F) {
	for _, s := range []string{`{"id":["a","b"],"with_table_uri":true}`, `{"version":3,"load_detailed_metadata":true}`,
		`{"version":null,"tag":"v1","branch":null,"check_declared":false,"vend_credentials":true}`, `{"version":3,"version":4}`,
		`{"ID":["a","b"]}`, `{"version":-1}`, `{"version":1e2}`, `{"version":01}`, `{"tag":"\u0061"}`, `{"with_table_uri":truex}`,
		`{"id":["a","b"],"x":1}`, ` { "id" : [ "a" , "b" ] , "version" : 12 } `, `{"id":[],"version":0}`} {
		f.Add([]byte(s), "a$b")
	}
	f.Fuzz(func(t *testing.T, body []byte, rawPath string) {
		path := []string{}
		if rawPath != "" {
			path = strings.Split(rawPath, "$")
		}
		fast, ok := describeOnePass(body, path)
		if !ok {
			return
		}
		var full describeTableRequest
		if e := decodeJSON(body, &full); e != nil {
			t.Fatalf("one pass took %q; the full decoder says %v", body, e)
		}
		if e := checkBodyID(full.ID, path); e != nil {
			t.Fatalf("one pass took %q for %q; the id check says %v", body, path, e)
		}
		if full.Version != nil && *full.Version < 0 {
			t.Fatalf("one pass took a negative version in %q", body)
		}
		if !reflect.DeepEqual(fast, full) {
			t.Fatalf("%q: one pass %+v, full %+v", body, fast, full)
		}
	})
}

// The bodies clients send take the one pass; what it leaves is decoded as
// before and refused as before.
func TestDescribeOnePass(t *testing.T) {
	path := []string{"b", "ns", "t"}
	for _, body := range []string{`{"id":["b","ns","t"],"with_table_uri":true}`, `{"version":3}`,
		`{"id":["b","ns","t"],"version":null,"with_table_uri":false,"load_detailed_metadata":true,"check_declared":null,"vend_credentials":false}`} {
		if _, ok := describeOnePass([]byte(body), path); !ok {
			t.Errorf("%s does not take the one pass", body)
		}
	}
	for body, refused := range map[string]bool{
		`{"version":1,"version":2}`: true, `{"id":["b","ns","x"]}`: true, `{"version":-1}`: true,
		`{"future":{"a":1},"with_table_uri":true}`: false, `{"Version":2}`: false,
	} {
		if _, ok := describeOnePass([]byte(body), path); ok {
			t.Errorf("%s took the one pass", body)
		}
		if _, e := decodeDescribeTable([]byte(body), path); (e != nil) != refused {
			t.Errorf("%s: error %v, want refused %v", body, e, refused)
		}
	}
}
