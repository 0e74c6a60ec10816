package iceberg

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Browse Data's filter for Iceberg tables: the small SQL predicate subset
// Lance Browse Data users type (LanceDB evaluates theirs), evaluated here
// row by row while the page is read. Grammar:
//
//	expr    = and { OR and }
//	and     = not { AND not }
//	not     = NOT not | primary
//	primary = "(" expr ")" | column op literal | column IS [NOT] NULL
//	        | column [NOT] IN "(" literal { "," literal } ")"
//	op      = "=" | "!=" | "<>" | "<" | "<=" | ">" | ">="
//	literal = number | 'text' ('' is a quote) | TRUE | FALSE
//	column  = name | "quoted name"
//
// Keywords are case-insensitive. A comparison with a null value is false,
// as in SQL.

const (
	// MaxFilterLen bounds the filter text: a predicate, not a program.
	MaxFilterLen = 1000
	// maxFilterTerms bounds comparisons (and IN items) in one filter.
	maxFilterTerms = 64
	// maxFilterDepth bounds nesting of NOT and parentheses.
	maxFilterDepth = 32
)

// Filter is a parsed Browse Data filter; the zero value keeps every row.
type Filter struct {
	root *node
	cols []string // the columns it reads, in first-use order
}

// IsZero reports an empty filter.
func (f Filter) IsZero() bool { return f.root == nil }

// Columns are the columns the filter reads.
func (f Filter) Columns() []string { return f.cols }

type nodeKind int

const (
	nodeAnd nodeKind = iota
	nodeOr
	nodeNot
	nodeCmp
	nodeNull // IS NULL (neg: IS NOT NULL)
	nodeIn
)

type node struct {
	kind  nodeKind
	kids  []*node
	col   string
	op    string
	lits  []literal
	neg   bool
	index int // the column's position in Filter.cols
}

type literal struct {
	text   string
	num    float64
	isNum  bool
	isBool bool
	b      bool
}

// ParseFilter reads a filter; an empty text is the zero Filter. A filter
// that breaks the grammar or a bound is an error whose text says where.
func ParseFilter(s string) (Filter, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Filter{}, nil
	}
	if len(s) > MaxFilterLen {
		return Filter{}, fmt.Errorf("a filter is at most %d characters", MaxFilterLen)
	}
	toks, err := lex(s)
	if err != nil {
		return Filter{}, err
	}
	p := &filterParser{toks: toks}
	root, err := p.expr(0)
	if err != nil {
		return Filter{}, err
	}
	if p.pos < len(p.toks) {
		return Filter{}, fmt.Errorf("unexpected %q after the end of the condition", p.toks[p.pos].text)
	}
	f := Filter{root: root}
	var index func(n *node)
	index = func(n *node) {
		if n.kind == nodeCmp || n.kind == nodeNull || n.kind == nodeIn {
			n.index = -1
			for i, c := range f.cols {
				if c == n.col {
					n.index = i
				}
			}
			if n.index < 0 {
				n.index = len(f.cols)
				f.cols = append(f.cols, n.col)
			}
		}
		for _, k := range n.kids {
			index(k)
		}
	}
	index(root)
	return f, nil
}

type tokKind int

const (
	tokIdent tokKind = iota
	tokQuoted
	tokString
	tokNumber
	tokOp
	tokLParen
	tokRParen
	tokComma
)

type filterToken struct {
	kind tokKind
	text string
}

func lex(s string) ([]filterToken, error) {
	var out []filterToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(':
			out, i = append(out, filterToken{tokLParen, "("}), i+1
		case c == ')':
			out, i = append(out, filterToken{tokRParen, ")"}), i+1
		case c == ',':
			out, i = append(out, filterToken{tokComma, ","}), i+1
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if !closed {
				return nil, fmt.Errorf("the quote opened at character %d is not closed", i+1)
			}
			kind := tokString
			if c == '"' {
				kind = tokQuoted
			}
			out, i = append(out, filterToken{kind, b.String()}), j
		case c == '=' || c == '<' || c == '>' || c == '!':
			op := string(c)
			if i+1 < len(s) && (s[i+1] == '=' || (c == '<' && s[i+1] == '>')) {
				op += string(s[i+1])
			}
			if op == "!" {
				return nil, fmt.Errorf("'!' at character %d must be '!='", i+1)
			}
			out, i = append(out, filterToken{tokOp, op}), i+len(op)
		case c == '-' || c == '.' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				((s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E'))) {
				j++
			}
			out, i = append(out, filterToken{tokNumber, s[i:j]}), j
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !(unicode.IsLetter(r) || r == '_') {
				return nil, fmt.Errorf("unexpected %q at character %d", r, i+1)
			}
			j := i + size
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.') {
					break
				}
				j += size
			}
			out, i = append(out, filterToken{tokIdent, s[i:j]}), j
		}
	}
	return out, nil
}

type filterParser struct {
	toks  []filterToken
	pos   int
	terms int
}

func (p *filterParser) peek() (filterToken, bool) {
	if p.pos >= len(p.toks) {
		return filterToken{}, false
	}
	return p.toks[p.pos], true
}

func (p *filterParser) keyword(k string) bool {
	t, ok := p.peek()
	if ok && t.kind == tokIdent && strings.EqualFold(t.text, k) {
		p.pos++
		return true
	}
	return false
}

func (p *filterParser) expr(depth int) (*node, error) {
	if depth > maxFilterDepth {
		return nil, fmt.Errorf("the filter nests deeper than %d levels", maxFilterDepth)
	}
	left, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	n := &node{kind: nodeOr, kids: []*node{left}}
	for p.keyword("OR") {
		right, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, right)
	}
	if len(n.kids) == 1 {
		return left, nil
	}
	return n, nil
}

func (p *filterParser) and(depth int) (*node, error) {
	left, err := p.not(depth)
	if err != nil {
		return nil, err
	}
	n := &node{kind: nodeAnd, kids: []*node{left}}
	for p.keyword("AND") {
		right, err := p.not(depth)
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, right)
	}
	if len(n.kids) == 1 {
		return left, nil
	}
	return n, nil
}

func (p *filterParser) not(depth int) (*node, error) {
	if depth > maxFilterDepth {
		return nil, fmt.Errorf("the filter nests deeper than %d levels", maxFilterDepth)
	}
	if p.keyword("NOT") {
		k, err := p.not(depth + 1)
		if err != nil {
			return nil, err
		}
		return &node{kind: nodeNot, kids: []*node{k}}, nil
	}
	return p.primary(depth)
}

func (p *filterParser) primary(depth int) (*node, error) {
	t, ok := p.peek()
	if !ok {
		return nil, fmt.Errorf("the filter ends where a condition should follow")
	}
	if t.kind == tokLParen {
		p.pos++
		n, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		if t, ok := p.peek(); !ok || t.kind != tokRParen {
			return nil, fmt.Errorf("a '(' is not closed")
		}
		p.pos++
		return n, nil
	}
	if t.kind != tokIdent && t.kind != tokQuoted {
		return nil, fmt.Errorf("expected a column name, found %q", t.text)
	}
	if t.kind == tokIdent && isKeyword(t.text) {
		return nil, fmt.Errorf("expected a column name, found the keyword %s", strings.ToUpper(t.text))
	}
	p.pos++
	if p.terms++; p.terms > maxFilterTerms {
		return nil, fmt.Errorf("a filter holds at most %d conditions", maxFilterTerms)
	}
	col := t.text
	if p.keyword("IS") {
		neg := p.keyword("NOT")
		if !p.keyword("NULL") {
			return nil, fmt.Errorf("IS must be followed by NULL or NOT NULL")
		}
		return &node{kind: nodeNull, col: col, neg: neg}, nil
	}
	neg := p.keyword("NOT")
	if p.keyword("IN") {
		if t, ok := p.peek(); !ok || t.kind != tokLParen {
			return nil, fmt.Errorf("IN must be followed by a list in parentheses")
		}
		p.pos++
		n := &node{kind: nodeIn, col: col, neg: neg}
		for {
			lit, err := p.literal()
			if err != nil {
				return nil, err
			}
			if p.terms++; p.terms > maxFilterTerms {
				return nil, fmt.Errorf("a filter holds at most %d conditions", maxFilterTerms)
			}
			n.lits = append(n.lits, lit)
			t, ok := p.peek()
			if ok && t.kind == tokComma {
				p.pos++
				continue
			}
			if ok && t.kind == tokRParen {
				p.pos++
				return n, nil
			}
			return nil, fmt.Errorf("an IN list must close with ')'")
		}
	}
	if neg {
		return nil, fmt.Errorf("NOT after a column must be followed by IN")
	}
	op, ok := p.peek()
	if !ok || op.kind != tokOp {
		return nil, fmt.Errorf("expected =, !=, <, <=, >, >=, IS or IN after %s", col)
	}
	p.pos++
	lit, err := p.literal()
	if err != nil {
		return nil, err
	}
	o := op.text
	if o == "<>" {
		o = "!="
	}
	return &node{kind: nodeCmp, col: col, op: o, lits: []literal{lit}}, nil
}

func (p *filterParser) literal() (literal, error) {
	t, ok := p.peek()
	if !ok {
		return literal{}, fmt.Errorf("the filter ends where a value should follow")
	}
	p.pos++
	switch {
	case t.kind == tokString:
		return literal{text: t.text}, nil
	case t.kind == tokNumber:
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return literal{}, fmt.Errorf("%q is not a number", t.text)
		}
		return literal{text: t.text, num: f, isNum: true}, nil
	case t.kind == tokIdent && strings.EqualFold(t.text, "true"):
		return literal{text: "true", isBool: true, b: true}, nil
	case t.kind == tokIdent && strings.EqualFold(t.text, "false"):
		return literal{text: "false", isBool: true}, nil
	}
	return literal{}, fmt.Errorf("expected a value ('text', a number, TRUE or FALSE), found %q", t.text)
}

func isKeyword(s string) bool {
	switch strings.ToUpper(s) {
	case "AND", "OR", "NOT", "IS", "NULL", "IN", "TRUE", "FALSE":
		return true
	}
	return false
}
