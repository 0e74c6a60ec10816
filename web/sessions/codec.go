package sessions

import (
	"bytes"
	"encoding/gob"
	"slices"
	"strings"
	"time"
)

// Codec is scs's gob encoding with the values in key order, so one
// session's unchanged data encodes to the same bytes every time (gob
// writes a map in Go's random iteration order): that sameness is what lets
// CommitCtx tell a renewal from a change. It decodes what scs.GobCodec
// wrote too, so sessions stored before it stay signed in.
type Codec struct{}

type codecEntry struct {
	Key   string
	Value any
}

// codecData is scs.GobCodec's struct (Deadline, Values) with Entries
// beside it; gob matches fields by name, so either form decodes into it.
type codecData struct {
	Deadline time.Time
	Values   map[string]any
	Entries  []codecEntry
}

// Encode writes the deadline and the values sorted by key.
func (Codec) Encode(deadline time.Time, values map[string]any) ([]byte, error) {
	d := codecData{Deadline: deadline, Entries: make([]codecEntry, 0, len(values))}
	for k, v := range values {
		d.Entries = append(d.Entries, codecEntry{k, v})
	}
	slices.SortFunc(d.Entries, func(a, b codecEntry) int { return strings.Compare(a.Key, b.Key) })
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Decode reads either form.
func (Codec) Decode(b []byte) (time.Time, map[string]any, error) {
	var d codecData
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&d); err != nil {
		return time.Time{}, nil, err
	}
	if d.Values == nil {
		d.Values = make(map[string]any, len(d.Entries))
	}
	for _, e := range d.Entries {
		d.Values[e.Key] = e.Value
	}
	return d.Deadline, d.Values, nil
}
