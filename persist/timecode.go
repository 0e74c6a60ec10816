package persist

import "time"

// Every stored time is Unix microseconds (UTC) in an INTEGER column, 0 for
// "not set". Microseconds because PostgreSQL's timestamps hold exactly that
// much, so a value round-trips through either backend unchanged, and because
// the task API shows microseconds and pages by the stored value; nanoseconds
// would hide digits no API shows, milliseconds would merge distinct events.

// Micros encodes t for storage; the zero time is 0.
func Micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// FromMicros decodes a stored time; 0 is the zero time.
func FromMicros(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.UnixMicro(n).UTC()
}
