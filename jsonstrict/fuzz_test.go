package jsonstrict

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCheck: Check never panics, and whatever it accepts that is valid JSON
// decodes with encoding/json, whose view of the keys it must agree with:
// a map decoded from an accepted object has as many keys as the object had.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"a":2}`, `[[[{"x":[1,{"y":2,"y":3}]}]]]`, `{"a":{"b":{"c":null}}}`, `"s"`, `{"\u0061":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data)
		if err != nil || !json.Valid(data) {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			return
		}
		var keys []json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(data))
		if tok, _ := dec.Token(); tok != json.Delim('{') {
			return
		}
		for dec.More() {
			k, _ := dec.Token()
			_ = k
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return
			}
			keys = append(keys, v)
		}
		if len(keys) != len(m) {
			t.Fatalf("accepted an object with %d members but %d distinct keys: %q", len(keys), len(m), data)
		}
	})
}
