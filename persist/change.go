package persist

import (
	"encoding/binary"
	"os"
	"sync"
)

// ChangeStamp says whether a SQLite database may have changed: a read
// cache takes a stamp before it reads, keeps it beside what it read, and
// serves the entry later only while the current stamp is still equal.
//
// The stamp is SQLite's own change detector: the WAL-index header at the
// start of the -shm file (https://www.sqlite.org/walformat.html). Every
// committed write transaction, by any connection of any process, rewrites
// it (mxFrame, the change counter iChange and checksums move; a restarted
// WAL gets new salts), and SQLite's readers compare exactly these bytes to
// learn that someone else wrote. The writer stores the header's second
// copy, then the first; one pread reads the first, then the second, and a
// stamp is given only when both agree, so a header being rewritten is never
// taken for a stable one. Reading it costs one pread of 96 bytes, against
// a query's read transaction, shm locks and row decoding.
type ChangeStamp [walIndexHeaderBytes]byte

const (
	// walIndexHeaderBytes is one copy of the WAL-index header (WalIndexHdr).
	walIndexHeaderBytes = 48
	// walIndexVersion is the header's iVersion for the WAL format SQLite
	// 3.7.0 and later write; anything else is not a header we know.
	walIndexVersion = 3007000
)

// changeWatch holds the -shm file open for ChangeStamp.
type changeWatch struct {
	once sync.Once
	f    *os.File // nil: no stamps (PostgreSQL, or no -shm file)
}

// ChangeStamp returns the database's current stamp; ok is false when no
// stamp can be had (PostgreSQL, a SQLite database not in WAL mode, a
// header being rewritten), and a cache must then not serve what it holds.
func (db *DB) ChangeStamp() (s ChangeStamp, ok bool) {
	w := &db.change
	w.once.Do(func() {
		if db.dialect.Name != "sqlite" {
			return
		}
		// Open has pinged, so a connection in WAL mode holds the file open;
		// SQLite truncates it (never unlinks it) when it re-initialises.
		w.f, _ = os.Open(db.url + "-shm")
	})
	if w.f == nil {
		return s, false
	}
	var b [2 * walIndexHeaderBytes]byte
	if n, err := w.f.ReadAt(b[:], 0); n != len(b) || err != nil {
		return s, false
	}
	one, two := b[:walIndexHeaderBytes], b[walIndexHeaderBytes:]
	// iVersion (native byte order, as the header is shared memory) and
	// isInit (byte 12) say the header is one SQLite has written.
	if binary.NativeEndian.Uint32(one) != walIndexVersion || one[12] == 0 || string(one) != string(two) {
		return s, false
	}
	copy(s[:], one)
	return s, true
}

func (w *changeWatch) close() {
	w.once.Do(func() {}) // no stamp opens the file after Close
	if w.f != nil {
		w.f.Close()
	}
}
