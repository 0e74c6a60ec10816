package jsonstrict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// frame is one open object or array.
type refFrame struct {
	object  bool
	keys    map[string]struct{}
	key     string // the key whose value is being read (objects)
	index   int    // the element being read (arrays)
	wantKey bool
}

// referenceCheck is the first Check, on encoding/json's Decoder.Token:
// slow (some thirty allocations for a small body) but plainly right, so the
// byte scanner that replaced it is fuzzed against it.
func referenceCheck(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers are skipped, never converted
	var stack []*refFrame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // io.EOF, or a syntax error the caller's decoder reports
		}
		var top *refFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if done := refEndValue(stack); done {
					return nil
				}
				continue
			}
			key, _ := tok.(string)
			if _, dup := top.keys[key]; dup {
				return &Error{Path: refPath(stack), Message: fmt.Sprintf("the key %q appears twice in one object; send each key once", key)}
			}
			top.keys[key] = struct{}{}
			top.key = key
			top.wantKey = false
			continue
		}
		switch d, _ := tok.(json.Delim); d {
		case '{', '[':
			if len(stack) >= MaxDepth {
				return &Error{Path: refPath(stack), Message: fmt.Sprintf("the JSON nests deeper than %d levels", MaxDepth)}
			}
			stack = append(stack, &refFrame{object: d == '{', keys: map[string]struct{}{}, wantKey: d == '{'})
			continue
		case ']':
			stack = stack[:len(stack)-1]
		}
		if done := refEndValue(stack); done {
			return nil
		}
	}
}

// endValue records that a value finished inside the innermost open frame and
// reports whether it was the top-level value.
func refEndValue(stack []*refFrame) bool {
	if len(stack) == 0 {
		return true
	}
	top := stack[len(stack)-1]
	if top.object {
		top.wantKey = true
	} else {
		top.index++
	}
	return false
}

// path renders where the innermost open frame sits, e.g. /schema/fields/3.
func refPath(stack []*refFrame) string {
	var b strings.Builder
	for _, f := range stack[:max(len(stack)-1, 0)] {
		b.WriteByte('/')
		if f.object {
			b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(f.key))
		} else {
			fmt.Fprint(&b, f.index)
		}
	}
	return b.String()
}

// FuzzCheckMatchesReference: Check refuses exactly what referenceCheck
// refuses, with the same message and path.
func FuzzCheckMatchesReference(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `[{"a":1},{"b":{"c":[1,2,{"d":1,"d":2}]}}]`,
		`{"a":01,"a":2}`, `{"a":1 "a":2}`, `{"a":1,}`, `[1,]`, `{"a":truex,"a":1}`, "{\"k\xff\":1,\"k\xfe\":2}",
		`{"a":1,"a"`, `{"x":"\ud800","\ud800":1,"\udfff":2}`, strings.Repeat("[", 600), `{"a":[],"b":{},"a":{}}`,
		`{"a/b~c":{"x":1,"x":2}}`, `[[],[{}],[{"a":{"b":1,"b":2}}]]`,
		`{"0":0,"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":0,"11":1,"12":2,"13":3,"14":4,"15":5,"16":6,"17":7,"3":0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, want := Check(data), referenceCheck(data)
		if (got == nil) != (want == nil) {
			t.Fatalf("Check(%q) = %v, reference %v", data, got, want)
		}
		if got != nil {
			g, w := got.(*Error), want.(*Error)
			if g.Message != w.Message || g.Path != w.Path {
				t.Fatalf("Check(%q) = %+v, reference %+v", data, g, w)
			}
		}
	})
}

// BenchmarkCheck checks a DescribeTable body and a small CreateNamespace
// body with Check and with referenceCheck, for the ratio.
func BenchmarkCheck(b *testing.B) {
	for _, body := range []string{`{"id":["bench","ns","t0000"]}`, `{"id":["b","ns"],"mode":"ExistOk","properties":{"owner":"ann","team":"x"}}`} {
		for _, impl := range []struct {
			name  string
			check func([]byte) error
		}{{"scanner", Check}, {"reference", referenceCheck}} {
			b.Run(fmt.Sprintf("%s/%dB", impl.name, len(body)), func(b *testing.B) {
				data := []byte(body)
				b.ReportAllocs()
				for b.Loop() {
					if impl.check(data) != nil {
						b.Fatal("refused")
					}
				}
			})
		}
	}
}
