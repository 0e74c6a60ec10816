package catalog

// OnTableChange sets the function told the id of every table whose content
// may have changed through this store: an Iceberg commit (one table or
// many), a Lance declare or create, a register. floe uses it to ask a
// worker for fresh figures of that table (plugin.ObserveNow). fn must not
// block; nil stops the calls.
func (s *Store) OnTableChange(fn func(tableID string)) {
	if fn == nil {
		s.onChange.Store(nil)
		return
	}
	s.onChange.Store(&fn)
}

func (s *Store) tableChanged(id string) {
	if fn := s.onChange.Load(); fn != nil && id != "" {
		(*fn)(id)
	}
}
