package observe

import (
	"time"

	"github.com/floe/floe/catalog"
)

// ObservedAt says when an object was last observed, without decoding its
// attributes: a cache of something derived from them checks it first.
func (s *Store) ObservedAt(objectID string, format catalog.Format) (time.Time, bool) {
	e, ok := s.lookup(key{objectID, format})
	if !ok {
		return time.Time{}, false
	}
	return e.meta.ObservedAt, true
}

// Changes is a counter that moves whenever an observation is stored or
// evicted; an aggregate over many observations recomputes when it moved.
func (s *Store) Changes() uint64 { return s.changes.Load() }
