package catalog

import "time"

// TableEventKind says what happened to a table.
type TableEventKind string

// The table events.
const (
	// TableCreated: a table entry was made (an Iceberg create or register,
	// a Lance declare, create or register, a deregistered Lance table made
	// visible again, or a recently deleted table undropped).
	TableCreated TableEventKind = "created"
	// TableCommitted: a new version (an Iceberg metadata swap, a Lance
	// version committed through floe).
	TableCommitted TableEventKind = "committed"
	// TableDropped: the entry is gone (a drop, with or without its data,
	// held as recently deleted or not, a bucket's or namespace's cascade),
	// hidden (a Lance deregister), or a recently deleted table purged.
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
	// Held: a drop that made the table recently deleted; its data stays
	// until PurgeAt (or a purge), and undrop brings it back.
	Held    bool
	PurgeAt time.Time
	// Purged: the data of a recently deleted table was deleted (its hold
	// ended, or Purge now); DataDeleted says whether there was data to
	// delete (an Iceberg drop without purge keeps it).
	Purged bool
}

// droppedEvent is the event of one table's drop: held until purgeAt, or
// removed at once (its data with it when deleteData).
func droppedEvent(t Table, deleteData, held bool, purgeAt time.Time) TableEvent {
	if held {
		return TableEvent{Kind: TableDropped, Table: t, Held: true, PurgeAt: purgeAt}
	}
	return TableEvent{Kind: TableDropped, Table: t, DataDeleted: deleteData}
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
