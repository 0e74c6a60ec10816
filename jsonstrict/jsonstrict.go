// Package jsonstrict checks a JSON document for what encoding/json lets
// through silently: an object with the same key twice (json.Unmarshal keeps
// the last, so two readers of one body can disagree on what it said), and
// nesting deeper than any request of ours needs. Every REST surface runs
// request bodies through it before decoding them.
package jsonstrict

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
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

// Check returns an *Error when the first JSON value in data repeats a key in
// one object or nests deeper than MaxDepth. Malformed JSON is not its
// business: Check returns nil and leaves the caller's decoder to say where the
// syntax breaks, in the words the caller already uses.
//
// Check reads the document as encoding/json's Decoder.Token does, token by
// token, so it reports a repeated key or a too deep nesting found before
// the first syntax error, and nothing after it; keys compare as decoded
// strings (an escaped "\u0061" is "a"). It is one pass over the bytes and
// allocates nothing for bodies whose keys are plain ASCII in objects of up
// to smallObject keys, which is nearly every request.
func Check(data []byte) error {
	c := checkers.Get().(*checker)
	c.data, c.pos = data, 0
	err := c.run()
	c.release()
	return err
}

// checkers keep their stacks between calls, so a check allocates nothing.
var checkers = sync.Pool{New: func() any {
	return &checker{frames: make([]frame, 0, 8), keys: make([][]byte, 0, 2*smallObject)}
}}

// maxPooledFrames bounds the stack a pooled checker keeps: a body nested
// MaxDepth deep should not leave 512 frames in the pool for good.
const maxPooledFrames = 64

// release forgets the document (no pooled checker keeps a body alive) and
// returns the checker to the pool.
func (c *checker) release() {
	clear(c.frames[:cap(c.frames)])
	clear(c.keys[:cap(c.keys)])
	c.data, c.frames, c.keys = nil, c.frames[:0], c.keys[:0]
	if cap(c.frames) <= maxPooledFrames && cap(c.keys) <= 4*smallObject*maxPooledFrames {
		checkers.Put(c)
	}
}

// smallObject is how many keys an object holds before its duplicate check
// moves from a linear scan to a map (a body of 200,000 keys must not cost
// 200,000² comparisons).
const smallObject = 16

// frame is one open object or array.
type frame struct {
	object  bool
	keys    int                 // where this object's keys start in checker.keys
	big     map[string]struct{} // the keys once there are more than smallObject
	key     string              // the key whose value is being read, decoded (for Error.Path)
	keyRaw  []byte              // ... or its raw bytes, when it needed no decoding
	index   int                 // the element being read (arrays)
	wantKey bool                // an object expecting a key (or its end)
	comma   bool                // a value was read: a comma or the end comes next
}

type checker struct {
	data   []byte
	pos    int
	frames []frame
	keys   [][]byte // the decoded keys of the open small objects, innermost last
}

// run walks the tokens as Decoder.Token does; "return nil" is a syntax
// error, which the caller's decoder reports in its own words.
func (c *checker) run() error {
	for {
		c.skipSpace()
		if c.pos >= len(c.data) {
			return nil // EOF before the first value ended: the decoder says so
		}
		ch := c.data[c.pos]
		top := c.top()
		switch {
		case top != nil && top.object && top.wantKey:
			// Right after {: a key or }. After a member: , or }.
			if ch == '}' && !top.comma {
				c.pos++
				if c.pop() {
					return nil
				}
				continue
			}
			if top.comma {
				switch ch {
				case ',':
					c.pos++
					top.comma = false
					c.skipSpace()
					if c.pos >= len(c.data) || c.data[c.pos] != '"' {
						return nil // a comma must be followed by a key
					}
					continue
				case '}':
					c.pos++
					if c.pop() {
						return nil
					}
					continue
				}
				return nil
			}
			if ch != '"' {
				return nil
			}
			raw, decoded, ok := c.readString(true)
			if !ok {
				return nil
			}
			if e := c.addKey(raw, decoded); e != nil {
				return e
			}
			c.skipSpace()
			if c.pos >= len(c.data) || c.data[c.pos] != ':' {
				return nil
			}
			c.pos++
			top.wantKey = false
			continue
		case top != nil && top.comma:
			// After an element or a member's value: , or the closing bracket.
			switch {
			case ch == ',':
				c.pos++
				top.comma = false
				if top.object {
					top.wantKey = true
					c.skipSpace()
					if c.pos >= len(c.data) || c.data[c.pos] != '"' {
						return nil
					}
				} else {
					top.index++
				}
				continue
			case ch == ']' && !top.object:
				c.pos++
				if c.pop() {
					return nil
				}
				continue
			}
			return nil
		case ch == ']' && top != nil && !top.object && top.index == 0:
			c.pos++ // an empty array
			if c.pop() {
				return nil
			}
			continue
		}
		// A value.
		switch {
		case ch == '{' || ch == '[':
			if len(c.frames) >= MaxDepth {
				return &Error{Path: c.path(), Message: fmt.Sprintf("the JSON nests deeper than %d levels", MaxDepth)}
			}
			c.pos++
			c.frames = append(c.frames, frame{object: ch == '{', keys: len(c.keys), wantKey: ch == '{'})
			continue
		case ch == '"':
			if _, _, ok := c.readString(false); !ok {
				return nil
			}
		case ch == '-' || '0' <= ch && ch <= '9':
			if !c.readNumber() {
				return nil
			}
		case ch == 't':
			if !c.readLiteral("true") {
				return nil
			}
		case ch == 'f':
			if !c.readLiteral("false") {
				return nil
			}
		case ch == 'n':
			if !c.readLiteral("null") {
				return nil
			}
		default:
			return nil
		}
		if c.endValue() {
			return nil
		}
	}
}

func (c *checker) top() *frame {
	if len(c.frames) == 0 {
		return nil
	}
	return &c.frames[len(c.frames)-1]
}

// endValue records that a value finished in the innermost open frame and
// reports whether it was the top-level value.
func (c *checker) endValue() bool {
	top := c.top()
	if top == nil {
		return true
	}
	top.comma = true
	if top.object {
		top.wantKey = true
	}
	return false
}

// pop closes the innermost frame, which is itself a value of its parent.
func (c *checker) pop() bool {
	top := c.top()
	c.keys = c.keys[:top.keys]
	c.frames = c.frames[:len(c.frames)-1]
	return c.endValue()
}

// addKey records a key of the innermost object, refusing one it has seen.
func (c *checker) addKey(raw []byte, decoded string) error {
	top := c.top()
	key := raw
	if raw == nil {
		key = []byte(decoded)
	}
	if top.big != nil {
		if _, dup := top.big[string(key)]; dup {
			return c.dup(key)
		}
		top.big[string(key)] = struct{}{}
	} else {
		for _, k := range c.keys[top.keys:] {
			if string(k) == string(key) {
				return c.dup(key)
			}
		}
		if n := len(c.keys) - top.keys; n < smallObject {
			c.keys = append(c.keys, key)
		} else {
			top.big = make(map[string]struct{}, 2*smallObject)
			for _, k := range c.keys[top.keys:] {
				top.big[string(k)] = struct{}{}
			}
			top.big[string(key)] = struct{}{}
			c.keys = c.keys[:top.keys]
		}
	}
	top.keyRaw, top.key = raw, decoded
	return nil
}

func (c *checker) dup(key []byte) error {
	return &Error{Path: c.path(), Message: fmt.Sprintf("the key %q appears twice in one object; send each key once", key)}
}

func (c *checker) skipSpace() {
	for c.pos < len(c.data) {
		switch c.data[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

// readString reads a string at pos. A key (decode) of plain ASCII without
// escapes comes back as its raw bytes (no copy); any other key is decoded
// as encoding/json decodes it (escapes, invalid UTF-8 as U+FFFD). ok is
// false for a malformed string.
func (c *checker) readString(decode bool) (raw []byte, decoded string, ok bool) {
	start := c.pos
	c.pos++ // the opening quote
	plain := true
	for c.pos < len(c.data) {
		ch := c.data[c.pos]
		switch {
		case ch == '"':
			c.pos++
			if plain || !decode {
				return c.data[start+1 : c.pos-1], "", true
			}
			return c.decodeKey(c.data[start:c.pos])
		case ch == '\\':
			plain = false
			c.pos++
			if c.pos >= len(c.data) {
				return nil, "", false
			}
			switch c.data[c.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.pos++
			case 'u':
				if c.pos+4 >= len(c.data) {
					return nil, "", false
				}
				for _, h := range c.data[c.pos+1 : c.pos+5] {
					if !isHex(h) {
						return nil, "", false
					}
				}
				c.pos += 5
			default:
				return nil, "", false
			}
		case ch < 0x20:
			return nil, "", false
		case ch >= 0x80:
			plain = false
			c.pos++
		default:
			c.pos++
		}
	}
	return nil, "", false
}

// decodeKey decodes a quoted key that has escapes or non-ASCII bytes, as
// encoding/json does; kept apart so the plain path allocates nothing.
func (c *checker) decodeKey(quoted []byte) ([]byte, string, bool) {
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return nil, "", false
	}
	return nil, s, true
}

func isHex(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}

// readNumber reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at pos.
func (c *checker) readNumber() bool {
	d := c.data
	if d[c.pos] == '-' {
		c.pos++
	}
	switch {
	case c.pos < len(d) && d[c.pos] == '0':
		c.pos++
	case c.pos < len(d) && '1' <= d[c.pos] && d[c.pos] <= '9':
		c.digits()
	default:
		return false
	}
	if c.pos < len(d) && d[c.pos] == '.' {
		c.pos++
		if !c.digits() {
			return false
		}
	}
	if c.pos < len(d) && (d[c.pos] == 'e' || d[c.pos] == 'E') {
		c.pos++
		if c.pos < len(d) && (d[c.pos] == '+' || d[c.pos] == '-') {
			c.pos++
		}
		if !c.digits() {
			return false
		}
	}
	return true
}

// digits reads one or more digits.
func (c *checker) digits() bool {
	start := c.pos
	for c.pos < len(c.data) && '0' <= c.data[c.pos] && c.data[c.pos] <= '9' {
		c.pos++
	}
	return c.pos > start
}

func (c *checker) readLiteral(lit string) bool {
	if len(c.data)-c.pos < len(lit) || string(c.data[c.pos:c.pos+len(lit)]) != lit {
		return false
	}
	c.pos += len(lit)
	return true
}

// path renders where the innermost open frame sits, e.g. /schema/fields/3.
func (c *checker) path() string {
	var b strings.Builder
	for _, f := range c.frames[:max(len(c.frames)-1, 0)] {
		b.WriteByte('/')
		if f.object {
			key := f.key
			if f.keyRaw != nil {
				key = string(f.keyRaw)
			}
			b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(key))
		} else {
			b.WriteString(strconv.Itoa(f.index))
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
