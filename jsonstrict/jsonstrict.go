// Package jsonstrict checks a JSON document for what encoding/json lets
// through silently: an object with the same key twice (json.Unmarshal keeps
// the last, so two readers of one body can disagree on what it said), and
// nesting deeper than any request of ours needs. Every REST surface runs
// request bodies through it before decoding them.
package jsonstrict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// MaxDepth bounds how deeply objects and arrays may nest. The deepest legal
// request is an Iceberg schema at the iceberg package's nesting limit, about
// four JSON levels per struct level; 512 leaves room for that and stops a
// body of brackets from costing stack and time out of proportion to its size.
const MaxDepth = 512

// Error says what is wrong with the document and where; Path is a
// JSON-pointer-like path to the object holding the problem ("" = top level).
type Error struct {
	Path    string
	Message string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Message + " (at " + e.Path + ")"
}

// frame is one open object or array.
type frame struct {
	object  bool
	keys    map[string]struct{}
	key     string // the key whose value is being read (objects)
	index   int    // the element being read (arrays)
	wantKey bool
}

// Check returns an *Error when the first JSON value in data repeats a key in
// one object or nests deeper than MaxDepth. Malformed JSON is not its
// business: Check returns nil and leaves the caller's decoder to say where the
// syntax breaks, in the words the caller already uses.
func Check(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers are skipped, never converted
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // io.EOF, or a syntax error the caller's decoder reports
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if done := endValue(stack); done {
					return nil
				}
				continue
			}
			key, _ := tok.(string)
			if _, dup := top.keys[key]; dup {
				return &Error{Path: path(stack), Message: fmt.Sprintf("the key %q appears twice in one object; send each key once", key)}
			}
			top.keys[key] = struct{}{}
			top.key = key
			top.wantKey = false
			continue
		}
		switch d, _ := tok.(json.Delim); d {
		case '{', '[':
			if len(stack) >= MaxDepth {
				return &Error{Path: path(stack), Message: fmt.Sprintf("the JSON nests deeper than %d levels", MaxDepth)}
			}
			stack = append(stack, &frame{object: d == '{', keys: map[string]struct{}{}, wantKey: d == '{'})
			continue
		case ']':
			stack = stack[:len(stack)-1]
		}
		if done := endValue(stack); done {
			return nil
		}
	}
}

// endValue records that a value finished inside the innermost open frame and
// reports whether it was the top-level value.
func endValue(stack []*frame) bool {
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
func path(stack []*frame) string {
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

// Unmarshal is Check followed by json.Unmarshal.
func Unmarshal(data []byte, v any) error {
	if err := Check(data); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}
