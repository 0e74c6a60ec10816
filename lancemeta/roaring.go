package lancemeta

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// fragmentSet is the set of fragment ids an index segment covers. Lance
// stores it as a 32-bit Roaring bitmap in the format's portable
// serialization (https://github.com/RoaringBitmap/RoaringFormatSpec):
// a cookie, one (key, cardinality-1) pair per container of 2^16 ids, then
// each container as a sorted array of u16, a 2^16-bit bitmap, or runs of
// (start, length-1). Only membership is asked of it, so containers are kept
// as they are serialized, never expanded.
type fragmentSet struct {
	keys       []uint16
	containers []container
}

type container struct {
	kind   byte     // arrayContainer, bitmapContainer, runContainer
	values []uint16 // array: sorted values; run: start, length-1 pairs
	bits   []byte   // bitmap: 8 KiB, little-endian 64-bit words
}

const (
	arrayContainer = iota
	bitmapContainer
	runContainer
)

const (
	cookieNoRuns   = 12346
	cookieWithRuns = 12347
	// arrayMax is the largest cardinality stored as an array; larger
	// containers are bitmaps (the format's rule).
	arrayMax = 4096
	// maxContainers: 2^16 keys cover every u32.
	maxContainers = 1 << 16
	// noOffsetThreshold: run-cookie bitmaps with fewer containers omit
	// the offset header.
	noOffsetThreshold = 4
)

var errBitmap = errors.New("bad fragment bitmap")

// parseFragmentSet decodes a portable Roaring bitmap. Every length is
// checked against the bytes there are, so a damaged bitmap is an error,
// never a large allocation.
func parseFragmentSet(b []byte) (fragmentSet, error) {
	r := reader{b: b}
	cookie, ok := r.u32()
	if !ok {
		return fragmentSet{}, fmt.Errorf("%w: no cookie", errBitmap)
	}
	var n int
	var runs []byte
	switch {
	case cookie&0xffff == cookieWithRuns:
		n = int(cookie>>16) + 1
		if runs, ok = r.take((n + 7) / 8); !ok {
			return fragmentSet{}, fmt.Errorf("%w: run flags cut short", errBitmap)
		}
	case cookie == cookieNoRuns:
		c, ok := r.u32()
		if !ok || c > maxContainers {
			return fragmentSet{}, fmt.Errorf("%w: container count", errBitmap)
		}
		n = int(c)
	default:
		return fragmentSet{}, fmt.Errorf("%w: cookie %d", errBitmap, cookie)
	}
	if n > maxContainers || n*4 > r.left() {
		return fragmentSet{}, fmt.Errorf("%w: %d containers in %d bytes", errBitmap, n, r.left())
	}
	s := fragmentSet{keys: make([]uint16, n), containers: make([]container, n)}
	cards := make([]int, n)
	for i := range n {
		k, _ := r.u16()
		c, _ := r.u16()
		if i > 0 && k <= s.keys[i-1] {
			return fragmentSet{}, fmt.Errorf("%w: keys out of order", errBitmap)
		}
		s.keys[i], cards[i] = k, int(c)+1
	}
	if runs == nil || n >= noOffsetThreshold {
		if _, ok := r.take(4 * n); !ok { // offsets: the containers follow in order anyway
			return fragmentSet{}, fmt.Errorf("%w: offsets cut short", errBitmap)
		}
	}
	for i := range n {
		isRun := runs != nil && runs[i/8]&(1<<(i%8)) != 0
		var c container
		switch {
		case isRun:
			nr, ok := r.u16()
			if !ok {
				return fragmentSet{}, fmt.Errorf("%w: run count cut short", errBitmap)
			}
			vals, ok := r.u16s(2 * int(nr))
			if !ok {
				return fragmentSet{}, fmt.Errorf("%w: runs cut short", errBitmap)
			}
			c = container{kind: runContainer, values: vals}
		case cards[i] <= arrayMax:
			vals, ok := r.u16s(cards[i])
			if !ok {
				return fragmentSet{}, fmt.Errorf("%w: array cut short", errBitmap)
			}
			c = container{kind: arrayContainer, values: vals}
		default:
			bits, ok := r.take(8192)
			if !ok {
				return fragmentSet{}, fmt.Errorf("%w: bitmap cut short", errBitmap)
			}
			c = container{kind: bitmapContainer, bits: bits}
		}
		s.containers[i] = c
	}
	return s, nil
}

// contains reports whether id is in the set.
func (s fragmentSet) contains(id uint32) bool {
	i, found := slices.BinarySearch(s.keys, uint16(id>>16))
	if !found {
		return false
	}
	low := uint16(id)
	c := s.containers[i]
	switch c.kind {
	case arrayContainer:
		_, ok := slices.BinarySearch(c.values, low)
		return ok
	case bitmapContainer:
		return c.bits[low/8]&(1<<(low%8)) != 0
	default:
		for j := 0; j+1 < len(c.values); j += 2 {
			start, length := c.values[j], c.values[j+1]
			if low < start {
				return false // runs are sorted
			}
			if uint32(low) <= uint32(start)+uint32(length) {
				return true
			}
		}
		return false
	}
}

// reader reads little-endian values off a byte slice, saying when it runs
// out instead of panicking.
type reader struct {
	b   []byte
	pos int
}

func (r *reader) left() int { return len(r.b) - r.pos }

func (r *reader) take(n int) ([]byte, bool) {
	if n < 0 || n > r.left() {
		return nil, false
	}
	out := r.b[r.pos : r.pos+n]
	r.pos += n
	return out, true
}

func (r *reader) u16() (uint16, bool) {
	b, ok := r.take(2)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint16(b), true
}

func (r *reader) u32() (uint32, bool) {
	b, ok := r.take(4)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b), true
}

func (r *reader) u16s(n int) ([]uint16, bool) {
	b, ok := r.take(2 * n)
	if !ok {
		return nil, false
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out, true
}
