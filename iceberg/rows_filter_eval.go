package iceberg

// Evaluating a parsed Browse Data filter against the cells of one row.

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// rowValue is one cell as the filter compares it.
type rowValue struct {
	null   bool
	num    float64
	isNum  bool
	b      bool
	isBool bool
	text   string
}

// cellValue reads row i of a column for comparison: numbers as numbers,
// booleans as booleans, everything else by its text (dates, timestamps
// and decimals print in an order-preserving form).
func cellValue(a arrow.Array, i int) rowValue {
	if a == nil || a.IsNull(i) {
		return rowValue{null: true}
	}
	switch c := a.(type) {
	case *array.Int8:
		return rowValue{num: float64(c.Value(i)), isNum: true}
	case *array.Int16:
		return rowValue{num: float64(c.Value(i)), isNum: true}
	case *array.Int32:
		return rowValue{num: float64(c.Value(i)), isNum: true}
	case *array.Int64:
		return rowValue{num: float64(c.Value(i)), isNum: true}
	case *array.Uint8:
		return rowValue{num: float64(c.Value(i)), isNum: true}
	case *array.Uint16:
		return rowValue{num: float64(c.Value(i)), isNum: true}
	case *array.Uint32:
		return rowValue{num: float64(c.Value(i)), isNum: true}
	case *array.Uint64:
		return rowValue{num: float64(c.Value(i)), isNum: true}
	case *array.Float32:
		return rowValue{num: float64(c.Value(i)), isNum: true}
	case *array.Float64:
		return rowValue{num: c.Value(i), isNum: true}
	case *array.Boolean:
		return rowValue{b: c.Value(i), isBool: true}
	case *array.String:
		return rowValue{text: c.Value(i)}
	case *array.LargeString:
		return rowValue{text: c.Value(i)}
	}
	return rowValue{text: a.ValueStr(i)}
}

// matches evaluates the filter on one row; cell(k) is the value of the
// filter's k-th column (Columns()).
func (f Filter) matches(cell func(k int) rowValue) (bool, error) {
	if f.root == nil {
		return true, nil
	}
	return eval(f.root, cell)
}

func eval(n *node, cell func(int) rowValue) (bool, error) {
	switch n.kind {
	case nodeAnd:
		for _, k := range n.kids {
			if ok, err := eval(k, cell); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case nodeOr:
		for _, k := range n.kids {
			if ok, err := eval(k, cell); err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case nodeNot:
		ok, err := eval(n.kids[0], cell)
		return !ok, err
	case nodeNull:
		return cell(n.index).null != n.neg, nil
	case nodeIn:
		v := cell(n.index)
		if v.null {
			return false, nil
		}
		for _, l := range n.lits {
			c, err := compareCell(n.col, v, l)
			if err != nil {
				return false, err
			}
			if c == 0 {
				return !n.neg, nil
			}
		}
		return n.neg, nil
	}
	v := cell(n.index)
	if v.null {
		return false, nil
	}
	c, err := compareCell(n.col, v, n.lits[0])
	if err != nil {
		return false, err
	}
	switch n.op {
	case "=":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

// compare orders a cell against a literal of a matching kind; a literal
// of another kind (text against a number column) is the operator's to fix.
func compareCell(col string, v rowValue, l literal) (int, error) {
	switch {
	case v.isNum:
		if !l.isNum {
			return 0, fmt.Errorf("column %s holds numbers; compare it with a number, not %s", col, l.text)
		}
		switch {
		case v.num < l.num:
			return -1, nil
		case v.num > l.num:
			return 1, nil
		}
		return 0, nil
	case v.isBool:
		if !l.isBool {
			return 0, fmt.Errorf("column %s holds booleans; compare it with TRUE or FALSE", col)
		}
		switch {
		case v.b == l.b:
			return 0, nil
		case !v.b:
			return -1, nil
		}
		return 1, nil
	}
	return strings.Compare(v.text, l.text), nil
}
