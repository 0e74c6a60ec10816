package catalog

// TableEventKind says what happened to a table.
type TableEventKind string

// The table events.
const (
	// TableCreated: a table entry was made (an Iceberg create or register,
	// a Lance declare, create or register, or a deregistered Lance table
	// made visible again).
	TableCreated TableEventKind = "created"
	// TableCommitted: a new version (an Iceberg metadata swap, a Lance
	// version committed through floe).
	TableCommitted TableEventKind = "committed"
	// TableDropped: the entry is gone (a drop, with or without its data,
	// a bucket's or namespace's cascade) or hidden (a Lance deregister).
	TableDropped TableEventKind = "dropped"
)

// TableEvent is one table change, told after its transaction committed.
type TableEvent struct {
	Kind  TableEventKind
	Table Table
	// Version is the Lance version a managed commit made (0 otherwise).
	Version uint64
	// DataDeleted: a drop that deleted the table's data too.
	DataDeleted bool
	// Deregistered: a Lance table hidden, its data kept.
	Deregistered bool
}

// OnTableEvent sets the function told of every table created, committed or
// dropped through this store, whichever surface or command asked (the
// audit trail's change events). fn runs on the caller's goroutine after
// the change committed and must not block; nil stops the calls.
func (s *Store) OnTableEvent(fn func(TableEvent)) {
	if fn == nil {
		s.onEvent.Store(nil)
		return
	}
	s.onEvent.Store(&fn)
}

func (s *Store) tableEvent(e TableEvent) {
	if fn := s.onEvent.Load(); fn != nil {
		(*fn)(e)
	}
}
