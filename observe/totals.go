package observe

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
)

// Per-bucket totals over time, for the bucket page's chart.
//
// This is an aggregate read at request time, not a series recorded at
// flush time: a recorded total would need each flush to know the table's
// bucket, would drift when replicas flush at once or a table is dropped,
// and would need a table (a migration) of its own. The sum of many step
// functions steps by each one's changes, so one query streams the
// bucket's tables' kept points in time order and a sweep adds each
// point's change to the running totals, keeping only the totals after the
// last change of each of at most MaxTotalSlots time slots (a count before
// it finds the span). Per request: two queries, memory O(tables in the
// bucket + MaxTotalSlots), an answer of at most MaxTotalSlots points. The
// database work does grow with the bucket's kept points, which the
// retention and MaxPointsPerObject bound per table: BenchmarkBucketTotals
// measures it (the README's Performance table). A window function (LAG)
// doing the differences in SQL measured about four times slower on SQLite.
//
// It reads the catalog's tables table (which tables are in the bucket now)
// beside observe's own points: both live in the one database the
// persistence package owns. A dropped table leaves the totals, past and
// present, as it leaves the bucket's lists.

// MaxTotalSlots bounds the points a totals series has: a chart 640 units
// wide gains nothing from more, and the answer stays this small however
// many tables and points the bucket holds.
const MaxTotalSlots = 160

// Totals is a bucket's rows and bytes over time.
type Totals struct {
	Points       []Point // oldest first; each the totals after the last change in its slot
	Observations int     // kept points the sums were made of
	Tables       int     // tables with at least one kept point
}

// BucketTotals sums the kept points of the bucket's tables into at most
// slots (<= 0 or above MaxTotalSlots: MaxTotalSlots) points, from the
// oldest kept point to now (or the newest point, if a clock ran ahead).
func (s *Store) BucketTotals(ctx context.Context, bucket string, slots int, now time.Time) (Totals, error) {
	if slots <= 0 || slots > MaxTotalSlots {
		slots = MaxTotalSlots
	}
	const bucketPoints = `SELECT p.object_id, p.format, p.observed_at, p.row_count, p.bytes
		FROM tables t JOIN observation_points p ON p.object_id = t.id AND p.format = t.format
		WHERE t.bucket = ?`
	var out Totals
	var t0, t1 sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MIN(observed_at), MAX(observed_at), COUNT(*), COUNT(DISTINCT object_id) FROM (`+bucketPoints+`) pts`, bucket).
		Scan(&t0, &t1, &out.Observations, &out.Tables); err != nil {
		return Totals{}, fmt.Errorf("observe: bucket totals: %w", err)
	}
	if !t0.Valid {
		return out, nil
	}
	end := max(persist.Micros(now), t1.Int64) // a clock ahead: the newest point ends the span
	span := end - t0.Int64 + 1
	rows, err := s.db.QueryContext(ctx, bucketPoints+` ORDER BY p.observed_at`, bucket)
	if err != nil {
		return Totals{}, fmt.Errorf("observe: bucket totals: %w", err)
	}
	defer rows.Close()
	// The sweep: each table's last figures, and the totals after the last
	// change of each slot seen so far.
	type last struct{ rows, bytes int64 }
	lastOf := map[key]last{}
	var cur Point
	slot := int64(-1)
	for rows.Next() {
		var k key
		var format string
		var at int64
		var r, b sql.NullInt64
		if err := rows.Scan(&k.objectID, &format, &at, &r, &b); err != nil {
			return Totals{}, fmt.Errorf("observe: bucket totals: %w", err)
		}
		k.format = catalog.Format(format)
		l := lastOf[k]
		if r.Valid {
			cur.Rows += r.Int64 - l.rows
			l.rows, cur.HasRows = r.Int64, true
		}
		if b.Valid {
			cur.Bytes += b.Int64 - l.bytes
			l.bytes, cur.HasBytes = b.Int64, true
		}
		lastOf[k] = l
		cur.At = persist.FromMicros(at)
		if sl := (at - t0.Int64) * int64(slots) / span; sl == slot {
			out.Points[len(out.Points)-1] = cur
		} else {
			slot = sl
			out.Points = append(out.Points, cur)
		}
	}
	if err := rows.Err(); err != nil {
		return Totals{}, fmt.Errorf("observe: bucket totals: %w", err)
	}
	return out, nil
}
