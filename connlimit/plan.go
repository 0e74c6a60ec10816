package connlimit

import "fmt"

// Headroom is how many of limit open files are kept for everything that is
// not an accepted connection: the catalog database (SQLite's file, WAL and
// shared memory, or PostgreSQL's pool), connections floe dials (the object
// store, the bundled workers' pipes), log files, the one connection per
// listener being admitted and the refusals being written. A fifth of the
// limit, at least minHeadroom.
func Headroom(limit int) int { return max(minHeadroom, limit/5) }

// minHeadroom: what a floe with every surface on and a PostgreSQL pool has
// open besides accepted connections, with room to spare.
const minHeadroom = 128

// MinTotal is the fewest connections floe can serve every surface with.
const MinTotal = 64

// Total is the connection budget under an open-file limit: the limit less
// the headroom. An error when that leaves fewer than MinTotal.
func Total(limit int) (int, error) {
	t := limit - Headroom(limit)
	if t < MinTotal {
		return 0, fmt.Errorf("the open-file limit is %d, which leaves %d connections after %d for floe's own files; raise it (ulimit -n) to at least %d",
			limit, max(t, 0), Headroom(limit), MinTotal+minHeadroom)
	}
	return t, nil
}
