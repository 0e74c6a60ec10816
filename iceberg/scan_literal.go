package iceberg

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Literals of a scan's filter, read from the spec's JSON single values.

// Layouts of the spec's JSON single values.
const (
	dateLayout    = "2006-01-02"
	timeLayout    = "15:04:05.999999"
	tsLayout      = "2006-01-02T15:04:05.999999"
	tsNanoLayout  = "2006-01-02T15:04:05.999999999"
	zoneSuffix    = "+00:00"
	microsPerDay  = int64(86_400_000_000)
	maxLiteralLen = 64 << 10 // a literal is a value, not a document
)

// parseLiteral reads a filter literal for a column of type t: the bare
// JSON value, or the spec's {"type":"literal","value":…}. Strings stand in
// for every type the way the spec's JSON single values write them.
func parseLiteral(t primType, raw json.RawMessage) (value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > maxLiteralLen {
		return value{}, fmt.Errorf("a literal of %d bytes is too long (at most %d)", len(raw), maxLiteralLen)
	}
	if len(raw) > 0 && raw[0] == '{' {
		var w struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(raw, &w); err != nil || w.Type != "literal" || len(w.Value) == 0 {
			return value{}, fmt.Errorf("a literal is a JSON value or {\"type\":\"literal\",\"value\":…}")
		}
		raw = bytes.TrimSpace(w.Value)
	}
	if string(raw) == "null" || len(raw) == 0 {
		return value{}, fmt.Errorf("a literal must not be null; use is-null")
	}
	var str string
	quoted := raw[0] == '"'
	if quoted {
		if err := json.Unmarshal(raw, &str); err != nil {
			return value{}, err
		}
	}
	num := func() (json.Number, error) {
		if quoted {
			return json.Number(str), nil
		}
		var n json.Number
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&n); err != nil {
			return "", fmt.Errorf("%s is not a %s", raw, t.name)
		}
		return n, nil
	}
	bad := func(err error) error { return fmt.Errorf("%s is not a %s value: %v", raw, t.name, err) }
	switch t.name {
	case "boolean":
		var b bool
		if quoted {
			v, err := strconv.ParseBool(str)
			if err != nil {
				return value{}, bad(err)
			}
			b = v
		} else if err := json.Unmarshal(raw, &b); err != nil {
			return value{}, bad(err)
		}
		return value{k: kindBool, b: b}, nil
	case "int", "long":
		n, err := num()
		if err != nil {
			return value{}, err
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return value{}, bad(err)
		}
		if t.name == "int" && (i < math.MinInt32 || i > math.MaxInt32) {
			return value{}, fmt.Errorf("%d does not fit an int", i)
		}
		return value{k: kindInt, i: i}, nil
	case "float", "double":
		n, err := num()
		if err != nil {
			return value{}, err
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			return value{}, bad(err)
		}
		if t.name == "float" {
			f = float64(float32(f))
		}
		return value{k: kindFloat, f: f}, nil
	case "string":
		if !quoted {
			return value{}, fmt.Errorf("%s is not a string", raw)
		}
		return value{k: kindString, s: str}, nil
	case "date":
		if !quoted {
			return intLiteral(num)
		}
		tm, err := time.Parse(dateLayout, str)
		if err != nil {
			return value{}, bad(err)
		}
		return value{k: kindInt, i: floorDiv(tm.Unix(), 86400)}, nil
	case "time":
		if !quoted {
			return intLiteral(num)
		}
		tm, err := time.Parse(timeLayout, str)
		if err != nil {
			return value{}, bad(err)
		}
		return value{k: kindInt, i: int64(tm.Hour())*3_600_000_000 + int64(tm.Minute())*60_000_000 + int64(tm.Second())*1_000_000 + int64(tm.Nanosecond()/1000)}, nil
	case "timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns":
		if !quoted {
			return intLiteral(num)
		}
		tm, err := parseTimestamp(str, strings.HasPrefix(t.name, "timestamptz"))
		if err != nil {
			return value{}, bad(err)
		}
		if strings.HasSuffix(t.name, "_ns") {
			return value{k: kindInt, i: tm.UnixNano()}, nil
		}
		return value{k: kindInt, i: tm.UnixMicro()}, nil
	case "uuid":
		u, err := uuid.Parse(str)
		if err != nil || !quoted {
			return value{}, fmt.Errorf("%s is not a uuid", raw)
		}
		return value{k: kindBytes, s: string(u[:])}, nil
	case "binary":
		b, err := hex.DecodeString(str)
		if err != nil || !quoted {
			return value{}, fmt.Errorf("%s is not hexadecimal binary", raw)
		}
		return value{k: kindBytes, s: string(b)}, nil
	}
	switch t.kind {
	case kindBytes: // fixed[L]
		b, err := hex.DecodeString(str)
		if err != nil || !quoted || len(b) != t.fixed {
			return value{}, fmt.Errorf("%s is not %d hexadecimal bytes", raw, t.fixed)
		}
		return value{k: kindBytes, s: string(b)}, nil
	case kindDecimal:
		n, err := num()
		if err != nil {
			return value{}, err
		}
		d, ok := decimalAt(string(n), t.scale)
		if !ok {
			return value{}, fmt.Errorf("%s is not a %s value", raw, t.name)
		}
		return value{k: kindDecimal, d: d}, nil
	}
	return value{}, fmt.Errorf("filters on %s columns are not supported", t.name)
}

func intLiteral(num func() (json.Number, error)) (value, error) {
	n, err := num()
	if err != nil {
		return value{}, err
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return value{}, fmt.Errorf("%s is not an integer", n)
	}
	return value{k: kindInt, i: i}, nil
}

// parseTimestamp reads the spec's timestamps; with a zone for timestamptz
// (any offset, taken to UTC), without one for timestamp.
func parseTimestamp(s string, zoned bool) (time.Time, error) {
	if zoned {
		return time.Parse("2006-01-02T15:04:05.999999999Z07:00", s)
	}
	return time.Parse(tsNanoLayout, s)
}

// decimalAt reads a decimal as the unscaled integer at scale; ok is false
// when it has more fractional digits than the scale holds (a literal the
// column cannot equal, and one bounds cannot be compared with exactly).
func decimalAt(s string, scale int) (*big.Int, bool) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, false
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	if !r.IsInt() {
		return nil, false
	}
	return new(big.Int).Set(r.Num()), true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
