package observe

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"io"
	"sync"
)

// Attributes are held in memory deflated: a Lance observation is mostly
// repetitive JSON (schema, 50 history entries) of ~6 KB that packs to
// roughly a fifth, which is what keeps 10,000 observations well inside the
// console's memory budget. Pages inflate the few they show.

var (
	writers = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(nil, flate.BestSpeed) // level is valid: never fails
		return w
	}}
	readers = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}
)

// pack deflates raw JSON.
func pack(raw json.RawMessage) []byte {
	var buf bytes.Buffer
	buf.Grow(len(raw) / 3)
	w := writers.Get().(*flate.Writer)
	w.Reset(&buf)
	w.Write(raw) // writes to a bytes.Buffer do not fail
	w.Close()
	writers.Put(w)
	return bytes.Clone(buf.Bytes())
}

// unpack inflates what pack made; a corrupt blob (impossible unless memory
// is) reads as an empty object rather than failing a page.
func unpack(packed []byte) json.RawMessage {
	r := readers.Get().(io.ReadCloser)
	defer readers.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(packed), nil); err != nil {
		return json.RawMessage("{}")
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return json.RawMessage("{}")
	}
	return out
}

// newEntry stores o with its attributes packed.
func newEntry(o Observation) *entry {
	packed := pack(o.Attributes)
	o.Attributes = nil
	return &entry{meta: o, packed: packed}
}
