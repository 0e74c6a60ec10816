package iceberg

import (
	"encoding/binary"
	"math/big"
	"math/bits"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"
)

// transform is a partition transform as planning applies it to values.
type transform struct {
	name string // identity, void, year, month, day, hour, bucket, truncate
	n    int    // bucket count or truncate width
}

var (
	bucketRe   = regexp.MustCompile(`^bucket\[(\d+)\]$`)
	truncateRe = regexp.MustCompile(`^truncate\[(\d+)\]$`)
)

// parseTransform reads a partition field's transform; ok is false for one
// planning does not know, whose partition values are then never used.
func parseTransform(s string) (transform, bool) {
	switch s {
	case "identity", "void", "year", "month", "day", "hour":
		return transform{name: s}, true
	}
	if m := bucketRe.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		return transform{name: "bucket", n: n}, err == nil && n > 0
	}
	if m := truncateRe.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		return transform{name: "truncate", n: n}, err == nil && n > 0
	}
	return transform{}, false
}

// resultType is the type of the partition values the transform makes from
// a source column of type src.
func (t transform) resultType(src primType) (primType, bool) {
	switch t.name {
	case "identity", "void", "truncate":
		return src, true
	case "year", "month", "hour", "bucket":
		return primType{name: "int", kind: kindInt}, true
	case "day":
		return primType{name: "date", kind: kindInt}, true
	}
	return primType{}, false
}

// apply is the transform of one source value; ok is false where the spec
// defines none (hour of a date, bucket of a float, void of anything).
func (t transform) apply(src primType, v value) (value, bool) {
	switch t.name {
	case "identity":
		return v, true
	case "year", "month", "day", "hour":
		return temporal(t.name, src.name, v.i)
	case "bucket":
		b, ok := bucketBytes(src, v)
		if !ok {
			return value{}, false
		}
		h := int64(int32(murmur3(b)))
		return value{k: kindInt, i: (h & 0x7fffffff) % int64(t.n)}, true
	case "truncate":
		return truncate(src, v, t.n)
	}
	return value{}, false
}

// temporal applies year, month, day or hour to a date (days since the
// epoch) or a timestamp (micros, or nanos for the _ns types).
func temporal(name, src string, x int64) (value, bool) {
	var micros int64
	switch src {
	case "date":
		if name == "hour" {
			return value{}, false
		}
		if name == "day" {
			return value{k: kindInt, i: x}, true
		}
		micros = x * microsPerDay
	case "timestamp", "timestamptz":
		micros = x
	case "timestamp_ns", "timestamptz_ns":
		micros = floorDiv(x, 1000)
	default:
		return value{}, false
	}
	switch name {
	case "day":
		return value{k: kindInt, i: floorDiv(micros, microsPerDay)}, true
	case "hour":
		return value{k: kindInt, i: floorDiv(micros, 3_600_000_000)}, true
	}
	tm := time.UnixMicro(micros).UTC()
	years := int64(tm.Year() - 1970)
	if name == "year" {
		return value{k: kindInt, i: years}, true
	}
	return value{k: kindInt, i: years*12 + int64(tm.Month()-1)}, true
}

// bucketBytes is what the spec hashes for bucket[N]: ints, longs, dates,
// times and microsecond timestamps as an 8-byte little-endian long;
// strings as UTF-8; binary, fixed and uuid as they are; decimals as the
// minimal big-endian two's complement of the unscaled value.
func bucketBytes(src primType, v value) ([]byte, bool) {
	switch src.name {
	case "int", "long", "date", "time", "timestamp", "timestamptz":
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v.i))
		return b[:], true
	case "string", "binary", "uuid":
		return []byte(v.s), true
	}
	switch src.kind {
	case kindBytes:
		return []byte(v.s), true
	case kindDecimal:
		return minimalTwosComplement(v.d), true
	}
	return nil, false
}

// minimalTwosComplement is n in as few big-endian two's-complement bytes
// as hold it (Java's BigInteger.toByteArray).
func minimalTwosComplement(n *big.Int) []byte {
	if n.Sign() >= 0 {
		b := n.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1 in bytes, inverted, is n in two's complement.
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

// truncate applies truncate[w]: integers and decimals to a multiple of w
// (rounding down), strings to w code points, binary to w bytes.
func truncate(src primType, v value, w int) (value, bool) {
	switch v.k {
	case kindInt:
		if src.name != "int" && src.name != "long" {
			return value{}, false
		}
		wi := int64(w)
		return value{k: kindInt, i: v.i - (((v.i % wi) + wi) % wi)}, true
	case kindString:
		s := v.s
		n := 0
		for i := range s {
			if n == w {
				return value{k: kindString, s: s[:i]}, true
			}
			n++
		}
		return v, true
	case kindBytes:
		if src.name == "uuid" || src.fixed > 0 {
			return value{}, false
		}
		if len(v.s) > w {
			return value{k: kindBytes, s: v.s[:w]}, true
		}
		return v, true
	case kindDecimal:
		wb := big.NewInt(int64(w))
		mod := new(big.Int).Mod(v.d, wb) // Euclidean: never negative
		return value{k: kindDecimal, d: new(big.Int).Sub(v.d, mod)}, true
	}
	return value{}, false
}

// runePrefix is the first n code points of s (all of s when shorter).
func runePrefix(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// murmur3 is MurmurHash3's 32-bit x86 variant with seed 0, the hash the
// spec's bucket transform uses.
func murmur3(data []byte) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	var h uint32
	n := len(data) / 4
	for i := range n {
		k := binary.LittleEndian.Uint32(data[i*4:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	tail := data[n*4:]
	var k uint32
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
