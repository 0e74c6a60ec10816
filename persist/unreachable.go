package persist

import (
	"context"
	"errors"
)

// IsUnreachable reports that err, returned by a database call, means the
// database server cannot be reached (stopped, restarting, cut off),
// whichever dialect made it. Code that holds no *DB uses it to answer 503
// "try again" instead of an internal error. Give it only errors of database
// calls: the classifiers read an io.EOF or a net.Error as a lost
// connection. A caller that gave up (context canceled or timed out) is not
// an outage.
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
