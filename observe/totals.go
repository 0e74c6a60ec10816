package observe

import (
	"context"
	"fmt"
	"time"

	"github.com/floe/floe/persist"
)

// Per-bucket totals over time, for the bucket page's chart.
//
// This is one bounded aggregate query with time slots, not a series
// recorded at flush time: a recorded total would need each flush to know
// the table's bucket, would drift when replicas flush at once or a table
// is dropped, and would need its own table. The sum of many step
// functions is the step function of the sum of their changes, so the
// query turns each table's kept points into changes (LAG over that
// table's points), sums the changes per time slot and answers at most
// MaxTotalSlots rows; the running sum is taken here. Its cost per request
// is one query and O(MaxTotalSlots) work in Go whatever the bucket holds;
// the database reads the bucket's tables' kept points through the
// points' primary key, which the retention and MaxPointsPerObject already
// bound per table.
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
	// Rows and bytes are changed separately: a point without one figure
	// (NULL) must not break the other's LAG chain.
	const q = `WITH pts AS (
			SELECT p.object_id, p.format, p.observed_at, p.row_count, p.bytes
			FROM tables t JOIN observation_points p ON p.object_id = t.id AND p.format = t.format
			WHERE t.bucket = ?),
		lo AS (SELECT MIN(observed_at) AS t0, MAX(observed_at) AS t1, COUNT(*) AS n, COUNT(DISTINCT object_id) AS tables FROM pts),
		changes AS (
			SELECT observed_at, row_count - COALESCE(LAG(row_count) OVER (PARTITION BY object_id, format ORDER BY observed_at), 0) AS dr, 0 AS db, 1 AS hr, 0 AS hb
			FROM pts WHERE row_count IS NOT NULL
			UNION ALL
			SELECT observed_at, 0, bytes - COALESCE(LAG(bytes) OVER (PARTITION BY object_id, format ORDER BY observed_at), 0), 0, 1
			FROM pts WHERE bytes IS NOT NULL)
		SELECT (c.observed_at - lo.t0) * ? / (CASE WHEN lo.t1 > ? THEN lo.t1 ELSE ? END - lo.t0 + 1) AS slot, MAX(c.observed_at), SUM(c.dr), SUM(c.db), MAX(c.hr), MAX(c.hb), MAX(lo.n), MAX(lo.tables)
		FROM changes c CROSS JOIN lo
		GROUP BY slot ORDER BY slot`
	end := persist.Micros(now)
	rows, err := s.db.QueryContext(ctx, q, bucket, slots, end, end)
	if err != nil {
		return Totals{}, fmt.Errorf("observe: bucket totals: %w", err)
	}
	defer rows.Close()
	var out Totals
	var cur Point
	for rows.Next() {
		var slot, at, dr, db, hr, hb, n, tables int64
		if err := rows.Scan(&slot, &at, &dr, &db, &hr, &hb, &n, &tables); err != nil {
			return Totals{}, fmt.Errorf("observe: bucket totals: %w", err)
		}
		cur.At = persist.FromMicros(at)
		cur.Rows += dr
		cur.Bytes += db
		cur.HasRows = cur.HasRows || hr == 1
		cur.HasBytes = cur.HasBytes || hb == 1
		out.Points = append(out.Points, cur)
		out.Observations, out.Tables = int(n), int(tables)
	}
	if err := rows.Err(); err != nil {
		return Totals{}, fmt.Errorf("observe: bucket totals: %w", err)
	}
	return out, nil
}
