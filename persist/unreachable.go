package persist

import (
	"context"
	"errors"
)

// IsUnreachable reports that err comes from a catalog database server that
// cannot be reached (stopped, restarting, cut off), whichever dialect made
// it. Surfaces that hold no *DB use it to answer 503 "try again" instead
// of an internal error; a caller that gave up (context canceled or timed
// out) is not an outage.
func IsUnreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	for _, d := range []Dialect{SQLite(), Postgres()} {
		if d.IsUnavailable != nil && d.IsUnavailable(err) {
			return true
		}
	}
	return false
}
