package lancerest

import "bytes"

// describeFields are the keys of a DescribeTable body, one bit each, so a
// key given twice is seen.
var describeFields = map[string]uint{
	"id": 1 << 0, "version": 1 << 1, "tag": 1 << 2, "branch": 1 << 3, "with_table_uri": 1 << 4,
	"load_detailed_metadata": 1 << 5, "check_declared": 1 << 6, "vend_credentials": 1 << 7,
}

// describeOnePass decodes a DescribeTable body in the one pass that also
// checks it, for the bodies clients send: an object of DescribeTable's own
// keys, each once and spelled as documented, with an id equal to the
// path's, plain ASCII strings, true/false/null flags and a non-negative
// integer (or null) version. ok is false for anything else — another key,
// a repeated one, an escape, a number of another form, malformed JSON —
// which goes through jsonstrict.Check and encoding/json as before and gets
// their answer and their error messages (FuzzDescribeOnePass holds the two
// paths to the same result for every body this takes).
func describeOnePass(body []byte, path []string) (req describeTableRequest, ok bool) {
	p := idScanner{b: body}
	p.space()
	if !p.byte('{') {
		return req, false
	}
	var seen uint
	p.space()
	if p.byte('}') {
		p.space()
		return req, p.done()
	}
	for {
		p.space()
		key, ok := p.plainString()
		if !ok {
			return req, false
		}
		bit := describeFields[string(key)]
		if bit == 0 || seen&bit != 0 {
			return req, false
		}
		seen |= bit
		p.space()
		if !p.byte(':') {
			return req, false
		}
		p.space()
		if !p.describeValue(&req, string(key), path) {
			return req, false
		}
		p.space()
		if p.byte('}') {
			break
		}
		if !p.byte(',') {
			return req, false
		}
	}
	p.space()
	return req, p.done()
}

func (p *idScanner) describeValue(req *describeTableRequest, key string, path []string) bool {
	switch key {
	case "id":
		id, ok := p.pathID(path)
		req.ID = id
		return ok
	case "version":
		if p.literal("null") {
			return true
		}
		v, ok := p.smallInt()
		req.Version = &v
		return ok
	case "tag", "branch":
		if p.literal("null") {
			return true
		}
		s, ok := p.plainString()
		v := string(s)
		if key == "tag" {
			req.Tag = &v
		} else {
			req.Branch = &v
		}
		return ok
	}
	var dst **bool
	switch key {
	case "with_table_uri":
		dst = &req.WithTableURI
	case "load_detailed_metadata":
		dst = &req.LoadDetailedMetadata
	case "check_declared":
		dst = &req.CheckDeclared
	default: // vend_credentials
		dst = &req.VendCredentials
	}
	switch {
	case p.literal("null"):
	case p.literal("true"):
		v := true
		*dst = &v
	case p.literal("false"):
		v := false
		*dst = &v
	default:
		return false
	}
	return p.valueEnds()
}

// valueEnds reports whether a literal just read is not the start of a
// longer word ("truex"): what follows must be space, a comma or the end of
// the object.
func (p *idScanner) valueEnds() bool {
	if p.pos == len(p.b) {
		return true
	}
	return bytes.IndexByte([]byte(" \t\r\n,}"), p.b[p.pos]) >= 0
}

// pathID reads an array of plain strings equal to path; the decoded id is
// path itself (so the body's id matches the path, as checkBodyID wants).
func (p *idScanner) pathID(path []string) ([]string, bool) {
	if !p.byte('[') {
		return nil, false
	}
	p.space()
	n := 0
	if !p.byte(']') {
		for {
			p.space()
			name, ok := p.plainString()
			if !ok || n >= len(path) || string(name) != path[n] {
				return nil, false
			}
			n++
			p.space()
			if p.byte(']') {
				break
			}
			if !p.byte(',') {
				return nil, false
			}
		}
	}
	if n != len(path) {
		return nil, false
	}
	return append([]string{}, path...), true
}

// smallInt reads a JSON integer of 0 to 18 digits, no sign, fraction or
// exponent, and no leading zero.
func (p *idScanner) smallInt() (int64, bool) {
	start := p.pos
	var v int64
	for p.pos < len(p.b) && p.b[p.pos] >= '0' && p.b[p.pos] <= '9' {
		v = v*10 + int64(p.b[p.pos]-'0')
		p.pos++
	}
	n := p.pos - start
	if n == 0 || n > 18 || (n > 1 && p.b[start] == '0') {
		return 0, false
	}
	return v, p.valueEnds()
}
