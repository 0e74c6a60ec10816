package views

import (
	"reflect"
	"testing"
)

func TestKVPairs(t *testing.T) {
	cases := []struct {
		in   string
		want []KV
	}{
		{"", nil},
		{"{}", nil},
		{`{"b":2,"a":"x"}`, []KV{{"a", "x"}, {"b", "2"}}},
		{`{"after":{"fragments":1,"rows":1400},"ran":["compaction","index refresh"],"ok":true,"n":null,"r":0.1}`,
			[]KV{{"after.fragments", "1"}, {"after.rows", "1400"}, {"n", "null"}, {"ok", "true"}, {"r", "0.1"}, {"ran", `["compaction","index refresh"]`}}},
		{`not json`, []KV{{"", "not json"}}},
	}
	for _, c := range cases {
		if got := kvPairs(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("kvPairs(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
