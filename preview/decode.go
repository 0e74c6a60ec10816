package preview

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Decode reads one or more consecutive Arrow IPC streams and renders up to
// limit rows. The first stream's schema names the columns; a later stream
// must have the same number of fields.
func Decode(data []byte, limit int) (*Result, error) {
	res := &Result{TotalRows: -1}
	rd := bytes.NewReader(data)
	first := true
	for rd.Len() > 0 && res.RowsRead < limit {
		r, err := ipc.NewReader(rd, ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			if first {
				return nil, err
			}
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		schema := r.Schema()
		if first {
			for i, f := range schema.Fields() {
				if i >= MaxColumns {
					break
				}
				res.Columns = append(res.Columns, Column{Name: f.Name, Type: f.Type.String()})
			}
			first = false
		} else if min(len(schema.Fields()), MaxColumns) != len(res.Columns) {
			r.Release()
			return nil, fmt.Errorf("streams disagree on the schema (%d vs %d columns)", len(schema.Fields()), len(res.Columns))
		}
		for r.Next() && res.RowsRead < limit {
			rec := r.RecordBatch()
			n := min(int(rec.NumRows()), limit-res.RowsRead)
			for i := 0; i < n; i++ {
				row := make([]Cell, len(res.Columns))
				for c := range res.Columns {
					row[c] = renderCell(rec.Column(c), i)
				}
				res.Rows = append(res.Rows, row)
			}
			res.RowsRead += n
			if int(rec.NumRows()) > n {
				res.Truncated = true
			}
		}
		err = r.Err()
		r.Release()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
	}
	if first {
		return nil, errors.New("no Arrow stream in the reply")
	}
	return res, nil
}

// renderCell renders one value; nested values render compactly.
func renderCell(arr arrow.Array, i int) Cell {
	if arr.IsNull(i) {
		return Cell{Null: true}
	}
	var sb strings.Builder
	vectorCut := writeValue(&sb, arr, i, 0)
	text, cut := clip(sb.String(), MaxCellRunes)
	return Cell{Text: text, Truncated: cut || vectorCut}
}

// maxNestedItems bounds how many elements of a list a cell lists before
// "…" and the length; the cell is clipped to MaxCellRunes anyway.
const maxNestedItems = 20

// maxDepth stops rendering absurdly nested values.
const maxDepth = 4

// writeValue appends arr[i] and reports whether it left values out.
func writeValue(sb *strings.Builder, arr arrow.Array, i, depth int) bool {
	if arr.IsNull(i) {
		sb.WriteString("null")
		return false
	}
	switch a := arr.(type) {
	case *array.Int8:
		sb.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int16:
		sb.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int32:
		sb.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int64:
		sb.WriteString(strconv.FormatInt(a.Value(i), 10))
	case *array.Uint8:
		sb.WriteString(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Uint16:
		sb.WriteString(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Uint32:
		sb.WriteString(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Uint64:
		sb.WriteString(strconv.FormatUint(a.Value(i), 10))
	case *array.Float32:
		sb.WriteString(strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32))
	case *array.Float64:
		sb.WriteString(strconv.FormatFloat(a.Value(i), 'g', -1, 64))
	case *array.Boolean:
		sb.WriteString(strconv.FormatBool(a.Value(i)))
	case *array.String:
		writeText(sb, a.Value(i), depth)
	case *array.LargeString:
		writeText(sb, a.Value(i), depth)
	case *array.StringView:
		writeText(sb, a.Value(i), depth)
	case *array.Binary:
		fmt.Fprintf(sb, "<%d bytes>", len(a.Value(i)))
	case *array.LargeBinary:
		fmt.Fprintf(sb, "<%d bytes>", len(a.Value(i)))
	case *array.Date32:
		sb.WriteString(a.Value(i).ToTime().Format(time.DateOnly))
	case *array.Date64:
		sb.WriteString(a.Value(i).ToTime().Format(time.DateOnly))
	case *array.Timestamp:
		ts := a.DataType().(*arrow.TimestampType)
		t := a.Value(i).ToTime(ts.Unit)
		if ts.TimeZone == "" {
			sb.WriteString(t.UTC().Format("2006-01-02 15:04:05.999999999"))
		} else {
			sb.WriteString(t.UTC().Format(time.RFC3339Nano))
		}
	case *array.FixedSizeList:
		s, e := a.ValueOffsets(i)
		return writeItems(sb, a.ListValues(), int(s), int(e), VectorShownValues, depth)
	case *array.List:
		s, e := a.ValueOffsets(i)
		return writeItems(sb, a.ListValues(), int(s), int(e), maxNestedItems, depth)
	case *array.LargeList:
		s, e := a.ValueOffsets(i)
		return writeItems(sb, a.ListValues(), int(s), int(e), maxNestedItems, depth)
	case *array.Dictionary: // Node's Arrow encodes string columns this way
		return writeValue(sb, a.Dictionary(), a.GetValueIndex(i), depth)
	case *array.Struct:
		if depth >= maxDepth {
			sb.WriteString("{…}")
			return true
		}
		st := a.DataType().(*arrow.StructType)
		cut := false
		sb.WriteByte('{')
		for f := 0; f < a.NumField(); f++ {
			if f > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(st.Field(f).Name)
			sb.WriteString(": ")
			cut = writeValue(sb, a.Field(f), i, depth+1) || cut
			if sb.Len() > MaxCellRunes*4 {
				sb.WriteString(", …")
				cut = true
				break
			}
		}
		sb.WriteByte('}')
		return cut
	default:
		sb.WriteString(arr.ValueStr(i))
	}
	return false
}

func writeText(sb *strings.Builder, s string, depth int) {
	if depth == 0 {
		sb.WriteString(s)
		return
	}
	sb.WriteString(strconv.Quote(s))
}

// writeItems renders values[start:end] as "[a, b, …] (n)" when longer than
// show.
func writeItems(sb *strings.Builder, values arrow.Array, start, end, show, depth int) bool {
	n := end - start
	if depth >= maxDepth {
		fmt.Fprintf(sb, "[…] (%d)", n)
		return true
	}
	sb.WriteByte('[')
	shown := min(n, show)
	for k := 0; k < shown; k++ {
		if k > 0 {
			sb.WriteString(", ")
		}
		writeValue(sb, values, start+k, depth+1)
	}
	if n > shown {
		fmt.Fprintf(sb, ", …] (%d)", n)
		return true
	}
	sb.WriteByte(']')
	return false
}

// clip cuts s to at most n runes, at a rune boundary, marking the cut.
func clip(s string, n int) (string, bool) {
	if len(s) <= n { // bytes ≥ runes: short enough
		return s, false
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…", true
		}
		count++
	}
	return s, false
}
