package lancerest

import (
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
