package observe

import (
	"encoding/json"
	"time"

	"github.com/floe/floe/catalog"
)

// Attributes are the keys DESIGN.md §6 names for Lance observations. A nil
// pointer means the worker did not report that value.
type Attributes struct {
	Rows           *int64         `json:"rows,omitempty"`
	Fragments      *int64         `json:"fragments,omitempty"`
	SmallFragments *int64         `json:"small_fragments,omitempty"`
	Version        *int64         `json:"version,omitempty"`
	Versions       *int64         `json:"versions,omitempty"`
	Bytes          *int64         `json:"bytes,omitempty"`
	Schema         []Field        `json:"schema,omitempty"`
	Indices        []Index        `json:"indices,omitempty"`
	History        []HistoryEntry `json:"history,omitempty"`
}

// Field is an Arrow-style schema field.
type Field struct {
	Name     string            `json:"name"`
	Type     json.RawMessage   `json:"type"` // a string such as "int64" or an Arrow JSON type object
	Nullable bool              `json:"nullable"`
	Children []Field           `json:"children,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// TypeString renders the field's type for people.
func (f Field) TypeString() string {
	var s string
	if json.Unmarshal(f.Type, &s) == nil {
		return s
	}
	var obj struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(f.Type, &obj) == nil && obj.Name != "" {
		return obj.Name
	}
	return string(f.Type)
}

// Index is one index on a Lance table.
type Index struct {
	Name          string   `json:"name"`
	Type          string   `json:"type"`
	Columns       []string `json:"columns"`
	IndexedRows   int64    `json:"indexed_rows"`
	UnindexedRows int64    `json:"unindexed_rows"`
}

// Coverage is the indexed share of rows in [0,1], or -1 when unknown.
func (i Index) Coverage() float64 {
	total := i.IndexedRows + i.UnindexedRows
	if total <= 0 {
		return -1
	}
	return float64(i.IndexedRows) / float64(total)
}

// HistoryEntry is one recent version.
type HistoryEntry struct {
	Version   int64     `json:"version"`
	Timestamp time.Time `json:"timestamp"`
	Rows      int64     `json:"rows"`
	Fragments int64     `json:"fragments"`
	Bytes     int64     `json:"bytes"`
}

// UnmarshalJSON accepts the timestamp as RFC 3339 text or Unix milliseconds.
func (h *HistoryEntry) UnmarshalJSON(b []byte) error {
	var raw struct {
		Version   int64           `json:"version"`
		Timestamp json.RawMessage `json:"timestamp"`
		Time      json.RawMessage `json:"time"`
		Rows      int64           `json:"rows"`
		Fragments int64           `json:"fragments"`
		Bytes     int64           `json:"bytes"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*h = HistoryEntry{Version: raw.Version, Rows: raw.Rows, Fragments: raw.Fragments, Bytes: raw.Bytes}
	ts := raw.Timestamp
	if len(ts) == 0 {
		ts = raw.Time
	}
	if len(ts) > 0 {
		var ms int64
		var text string
		switch {
		case json.Unmarshal(ts, &ms) == nil:
			h.Timestamp = time.UnixMilli(ms)
		case json.Unmarshal(ts, &text) == nil:
			if t, err := time.Parse(time.RFC3339Nano, text); err == nil {
				h.Timestamp = t
			}
		}
	}
	return nil
}

// attributes parses an entry's attributes once; malformed values leave the
// affected keys nil rather than failing the page that asked.
func (s *Store) attributes(e *entry) *Attributes {
	if a := e.parsed.Load(); a != nil {
		return a
	}
	a := new(Attributes)
	raw, ok := s.raw(e)
	if json.Unmarshal(raw, a) != nil {
		a = parseLenient(raw)
	}
	if ok {
		e.parsed.Store(a)
	}
	return a
}

// parseLenient decodes key by key so one malformed key does not hide the rest.
func parseLenient(b json.RawMessage) *Attributes {
	var m map[string]json.RawMessage
	a := new(Attributes)
	if json.Unmarshal(b, &m) != nil {
		return a
	}
	for k, v := range m {
		one, _ := json.Marshal(map[string]json.RawMessage{k: v})
		var part Attributes
		if json.Unmarshal(one, &part) != nil {
			continue
		}
		switch k {
		case "rows":
			a.Rows = part.Rows
		case "fragments":
			a.Fragments = part.Fragments
		case "small_fragments":
			a.SmallFragments = part.SmallFragments
		case "version":
			a.Version = part.Version
		case "versions":
			a.Versions = part.Versions
		case "bytes":
			a.Bytes = part.Bytes
		case "schema":
			a.Schema = part.Schema
		case "indices":
			a.Indices = part.Indices
		case "history":
			a.History = part.History
		}
	}
	return a
}

// Stats is an observation with its attributes decoded.
type Stats struct {
	Attributes
	ObservedAt time.Time
	WorkerID   string
}

// Stats returns the decoded attributes of an object's last observation.
func (s *Store) Stats(objectID string, format catalog.Format) (Stats, bool) {
	e, ok := s.lookup(key{objectID, format})
	if !ok {
		return Stats{}, false
	}
	return Stats{Attributes: *s.attributes(e), ObservedAt: e.meta.ObservedAt, WorkerID: e.meta.WorkerID}, true
}

// Rows returns the observed row count, when it was observed and by which
// worker; ok is false when nothing has reported a row count.
func (s *Store) Rows(objectID string, format catalog.Format) (rows int64, observedAt time.Time, workerID string, ok bool) {
	st, found := s.Stats(objectID, format)
	if !found || st.Rows == nil {
		return 0, time.Time{}, "", false
	}
	return *st.Rows, st.ObservedAt, st.WorkerID, true
}

// WorkerFor returns the worker that last observed an object in a format.
func (s *Store) WorkerFor(objectID string, format catalog.Format) (string, bool) {
	o, ok := s.Get(objectID, format)
	if !ok || o.WorkerID == "" {
		return "", false
	}
	return o.WorkerID, true
}
