package iceberg

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// This file is the typed values scan planning compares: literals of a
// filter, column bounds of a data file (the spec's single-value binary
// serialization), partition values read from a manifest, and their JSON
// form in a plan's answer.

// valueKind says how a value compares.
type valueKind uint8

const (
	kindBool    valueKind = iota + 1
	kindInt               // int, long, date, time, timestamps: i
	kindFloat             // float, double: f
	kindString            // string: s (UTF-8, compared bytewise as the spec orders strings)
	kindBytes             // binary, fixed, uuid: s holds the raw bytes
	kindDecimal           // decimal(p,s): d is the unscaled value at the type's scale
)

// value is one typed value; the zero value is no value.
type value struct {
	k valueKind
	b bool
	i int64
	f float64
	s string
	d *big.Int
}

// primType is a primitive type as planning needs it: how its values
// compare and, for decimals, the scale; nanos marks the _ns timestamps.
type primType struct {
	name  string // as in the schema: long, decimal(9,2), fixed[16], timestamptz_ns
	kind  valueKind
	scale int
	fixed int // fixed[L]: L
}

// primitiveType reads a schema's primitive type name; ok is false for the
// types planning cannot compare (variant, geometry, unknown…), whose
// predicates then never prune.
func primitiveType(name string) (primType, bool) {
	t := primType{name: name}
	switch name {
	case "boolean":
		t.kind = kindBool
	case "int", "long", "date", "time", "timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns":
		t.kind = kindInt
	case "float", "double":
		t.kind = kindFloat
	case "string":
		t.kind = kindString
	case "binary", "uuid":
		t.kind = kindBytes
	default:
		if m := decimalRe.FindStringSubmatch(name); m != nil {
			t.kind = kindDecimal
			t.scale, _ = strconv.Atoi(m[2])
			return t, true
		}
		if m := fixedRe.FindStringSubmatch(name); m != nil {
			t.kind = kindBytes
			t.fixed, _ = strconv.Atoi(m[1])
			return t, true
		}
		return t, false
	}
	return t, true
}

// compare orders two values of one kind: -1, 0 or 1. NaN sorts above every
// other float, as Iceberg orders them.
func compare(a, b value) int {
	switch a.k {
	case kindBool:
		switch {
		case a.b == b.b:
			return 0
		case !a.b:
			return -1
		}
		return 1
	case kindInt:
		return cmpInt(a.i, b.i)
	case kindFloat:
		an, bn := math.IsNaN(a.f), math.IsNaN(b.f)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		case a.f < b.f:
			return -1
		case a.f > b.f:
			return 1
		}
		return 0
	case kindString, kindBytes:
		return strings.Compare(a.s, b.s)
	case kindDecimal:
		return a.d.Cmp(b.d)
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// decodeBound reads a bound of a data file or a manifest summary (the
// spec's single-value binary serialization); ok is false when the bytes do
// not fit the type, and the bound is then not used.
func decodeBound(t primType, b []byte) (value, bool) {
	switch t.kind {
	case kindBool:
		if len(b) != 1 {
			return value{}, false
		}
		return value{k: kindBool, b: b[0] != 0}, true
	case kindInt:
		switch len(b) { // 4 bytes: int and date, or a long promoted from int
		case 4:
			return value{k: kindInt, i: int64(int32(binary.LittleEndian.Uint32(b)))}, true
		case 8:
			return value{k: kindInt, i: int64(binary.LittleEndian.Uint64(b))}, true
		}
	case kindFloat:
		switch len(b) { // 4 bytes: float, or a double promoted from float
		case 4:
			return value{k: kindFloat, f: float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))}, true
		case 8:
			return value{k: kindFloat, f: math.Float64frombits(binary.LittleEndian.Uint64(b))}, true
		}
	case kindString, kindBytes:
		return value{k: t.kind, s: string(b)}, true
	case kindDecimal:
		if len(b) == 0 || len(b) > 16 {
			return value{}, false
		}
		return value{k: kindDecimal, d: fromTwosComplement(b)}, true
	}
	return value{}, false
}

// fromTwosComplement reads a big-endian two's-complement integer.
func fromTwosComplement(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n
}

// partitionValue converts a partition value as the Avro decoder gives it
// (int, int64, string, time.Time for date and timestamps, []byte, fixed
// arrays, *big.Rat for decimals…) to a value of the field's result type.
// ok is false for null.
func partitionValue(t primType, v any) (value, bool, error) {
	if m, isUnion := v.(map[string]any); isUnion && len(m) == 1 {
		for _, inner := range m { // a union the decoder left named
			v = inner
		}
	}
	switch x := v.(type) {
	case nil:
		return value{}, false, nil
	case bool:
		return value{k: kindBool, b: x}, true, nil
	case int:
		return value{k: kindInt, i: int64(x)}, true, nil
	case int32:
		return value{k: kindInt, i: int64(x)}, true, nil
	case int64:
		return value{k: kindInt, i: x}, true, nil
	case float32:
		return value{k: kindFloat, f: float64(x)}, true, nil
	case float64:
		return value{k: kindFloat, f: x}, true, nil
	case string:
		if t.name == "uuid" {
			u, err := uuid.Parse(x)
			if err != nil {
				return value{}, false, fmt.Errorf("partition value %q is not a uuid", x)
			}
			return value{k: kindBytes, s: string(u[:])}, true, nil
		}
		return value{k: t.kind, s: x}, true, nil
	case []byte:
		if t.kind == kindDecimal {
			return value{k: kindDecimal, d: fromTwosComplement(x)}, true, nil
		}
		return value{k: kindBytes, s: string(x)}, true, nil
	case [16]byte:
		return value{k: kindBytes, s: string(x[:])}, true, nil
	case time.Time:
		switch t.name {
		case "date":
			return value{k: kindInt, i: floorDiv(x.Unix(), 86400)}, true, nil
		case "timestamp_ns", "timestamptz_ns":
			return value{k: kindInt, i: x.UnixNano()}, true, nil
		}
		return value{k: kindInt, i: x.UnixMicro()}, true, nil
	case time.Duration: // time-micros
		return value{k: kindInt, i: x.Microseconds()}, true, nil
	case *big.Rat:
		d, ok := decimalAt(x.FloatString(t.scale+1), t.scale)
		if !ok {
			return value{}, false, fmt.Errorf("partition value %s does not fit %s", x.String(), t.name)
		}
		return value{k: kindDecimal, d: d}, true, nil
	}
	return value{}, false, fmt.Errorf("partition value of Go type %T is not understood", v)
}

// jsonValue is v as the spec's JSON single value of type t, the form a
// plan's partition tuples take.
func jsonValue(t primType, v value) any {
	switch t.name {
	case "date":
		return time.Unix(v.i*86400, 0).UTC().Format(dateLayout)
	case "time":
		return time.UnixMicro(v.i).UTC().Format(timeLayout)
	case "timestamp":
		return time.UnixMicro(v.i).UTC().Format(tsLayout)
	case "timestamptz":
		return time.UnixMicro(v.i).UTC().Format(tsLayout) + zoneSuffix
	case "timestamp_ns":
		return time.Unix(0, v.i).UTC().Format(tsNanoLayout)
	case "timestamptz_ns":
		return time.Unix(0, v.i).UTC().Format(tsNanoLayout) + zoneSuffix
	case "uuid":
		u, err := uuid.FromBytes([]byte(v.s))
		if err != nil {
			return strings.ToUpper(hex.EncodeToString([]byte(v.s)))
		}
		return u.String()
	}
	switch v.k {
	case kindBool:
		return v.b
	case kindInt:
		return v.i
	case kindFloat:
		return jsonFloat(v.f)
	case kindString:
		return v.s
	case kindBytes:
		return strings.ToUpper(hex.EncodeToString([]byte(v.s)))
	case kindDecimal:
		return new(big.Rat).SetFrac(v.d, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.scale)), nil)).FloatString(t.scale)
	}
	return nil
}

// jsonFloat is f as JSON can carry it: NaN and the infinities, which JSON
// numbers cannot, as the strings Java writes for them.
func jsonFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}
