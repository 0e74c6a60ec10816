package lancerest

// bodyIsPathID reports whether body says nothing but the path's id: empty,
// {}, or {"id": [...]} naming exactly the path's names, in plain printable
// ASCII, with JSON whitespace only. That is the body LanceDB sends with
// every DescribeTable, TableExists and DescribeNamespace, so recognising it
// in one pass saves those operations the strict check and encoding/json's
// reflection. Anything else (another field, an escape, a different id,
// malformed JSON) is false and goes through the full decoder, which gives
// the same answer for every body this accepts (FuzzBodyIsPathID) and the
// error messages for the rest.
func bodyIsPathID(body []byte, path []string) bool {
	p := idScanner{b: body}
	p.space()
	if p.done() {
		return true // no body
	}
	if !p.byte('{') {
		return false
	}
	p.space()
	if p.byte('}') {
		p.space()
		return p.done()
	}
	if !p.literal(`"id"`) {
		return false
	}
	p.space()
	if !p.byte(':') {
		return false
	}
	p.space()
	if !p.byte('[') {
		return false
	}
	p.space()
	n := 0
	if !p.byte(']') {
		for {
			p.space()
			name, ok := p.plainString()
			if !ok || n >= len(path) || string(name) != path[n] {
				return false
			}
			n++
			p.space()
			if p.byte(']') {
				break
			}
			if !p.byte(',') {
				return false
			}
		}
	}
	p.space()
	if n != len(path) || !p.byte('}') {
		return false
	}
	p.space()
	return p.done()
}

type idScanner struct {
	b   []byte
	pos int
}

func (p *idScanner) done() bool { return p.pos == len(p.b) }

func (p *idScanner) space() {
	for p.pos < len(p.b) {
		switch p.b[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *idScanner) byte(c byte) bool {
	if p.pos < len(p.b) && p.b[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *idScanner) literal(s string) bool {
	if len(p.b)-p.pos >= len(s) && string(p.b[p.pos:p.pos+len(s)]) == s {
		p.pos += len(s)
		return true
	}
	return false
}

// plainString reads a JSON string of printable ASCII without escapes; its
// bytes are its value (aliasing the body: compared, never kept).
func (p *idScanner) plainString() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.pos
	for p.pos < len(p.b) {
		c := p.b[p.pos]
		switch {
		case c == '"':
			s := p.b[start:p.pos]
			p.pos++
			return s, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, false
		}
		p.pos++
	}
	return nil, false
}
