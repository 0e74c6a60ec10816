package observe

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
)

// Observation history: the store keeps only each object's latest
// observation; history keeps a point (rows, bytes, version) every time a
// flushed observation's figures differ from the object's previous point,
// for trend charts. Points are written in the flush's transaction, off the
// Put path, and bounded by age (the retention) and per object
// (MaxPointsPerObject).

// The points table is observe's migration 0022_observation_points.

const (
	// DefaultHistoryRetention is how long points are kept unless the
	// operator says otherwise (floe serve --history-retention).
	DefaultHistoryRetention = 90 * 24 * time.Hour
	// MaxPointsPerObject bounds one object's points: a chart of a
	// thousand is already denser than its pixels.
	MaxPointsPerObject = 1000
	// historyPruneEvery is how often the flush also prunes old points.
	historyPruneEvery = time.Hour
	// MaxHistoryRead bounds the points one History or HistoryOf call
	// returns, so a chart over many tables cannot read the whole table.
	MaxHistoryRead = 200_000
)

// Point is one kept observation's figures.
type Point struct {
	At                time.Time
	Rows, Bytes       int64
	HasRows, HasBytes bool
	Version           int64 // Lance version or Iceberg snapshot id; 0 when not said
}

// figures are what a point keeps, read from an observation's attributes.
type figures struct {
	rows, bytes, version int64
	hasRows, hasBytes    bool
}

// SetHistoryRetention sets how long points are kept; 0 or less keeps
// none (history off). Call before Run.
func (s *Store) SetHistoryRetention(d time.Duration) {
	s.histMu.Lock()
	s.retention = max(d, 0)
	s.histMu.Unlock()
}

// HistoryRetention is the retention in force.
func (s *Store) HistoryRetention() time.Duration {
	s.histMu.Lock()
	defer s.histMu.Unlock()
	return s.retention
}

// History returns an object's points since since (zero: all kept), oldest
// first, at most limit (<= 0 or above MaxPointsPerObject:
// MaxPointsPerObject), the newest ones when there are more.
func (s *Store) History(ctx context.Context, objectID string, f catalog.Format, since time.Time, limit int) ([]Point, error) {
	if limit <= 0 || limit > MaxPointsPerObject {
		limit = MaxPointsPerObject
	}
	rows, err := s.db.QueryContext(ctx, `SELECT observed_at, row_count, bytes, version FROM observation_points
		WHERE object_id = ? AND format = ? AND observed_at >= ? ORDER BY observed_at DESC LIMIT ?`,
		objectID, string(f), persist.Micros(since), limit)
	if err != nil {
		return nil, fmt.Errorf("observe: history: %w", err)
	}
	defer rows.Close()
	var out []Point
	for rows.Next() {
		p, err := scanPoint(rows)
		if err != nil {
			return nil, fmt.Errorf("observe: history: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("observe: history: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// ObjectPoint is a point of one object, for sums over many.
type ObjectPoint struct {
	ObjectID string
	Point
}

// historyBatch bounds the ids of one HistoryOf query (bind parameters).
const historyBatch = 500

// HistoryOf returns the points since since of every object in ids (one
// format), oldest first, at most MaxHistoryRead; truncated says some were
// left out (the newest are kept).
func (s *Store) HistoryOf(ctx context.Context, ids []string, f catalog.Format, since time.Time) (pts []ObjectPoint, truncated bool, err error) {
	for start := 0; start < len(ids); start += historyBatch {
		batch := ids[start:min(start+historyBatch, len(ids))]
		args := []any{string(f), persist.Micros(since)}
		for _, id := range batch {
			args = append(args, id)
		}
		rows, err := s.db.QueryContext(ctx, `SELECT object_id, observed_at, row_count, bytes, version FROM observation_points
			WHERE format = ? AND observed_at >= ? AND object_id IN (?`+strings.Repeat(", ?", len(batch)-1)+`)`, args...)
		if err != nil {
			return nil, false, fmt.Errorf("observe: history: %w", err)
		}
		for rows.Next() {
			var op ObjectPoint
			var at int64
			var r, b, v sql.NullInt64
			if err := rows.Scan(&op.ObjectID, &at, &r, &b, &v); err != nil {
				rows.Close()
				return nil, false, fmt.Errorf("observe: history: %w", err)
			}
			op.Point = point(at, r, b, v)
			pts = append(pts, op)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, false, fmt.Errorf("observe: history: %w", err)
		}
	}
	sortPoints(pts)
	if len(pts) > MaxHistoryRead {
		pts, truncated = pts[len(pts)-MaxHistoryRead:], true
	}
	return pts, truncated, nil
}

func sortPoints(pts []ObjectPoint) {
	// Points arrive per batch in no order; times are what a sum sweeps.
	slices.SortFunc(pts, func(a, b ObjectPoint) int {
		switch {
		case a.At.Before(b.At):
			return -1
		case a.At.After(b.At):
			return 1
		}
		return strings.Compare(a.ObjectID, b.ObjectID)
	})
}

func scanPoint(rows *sql.Rows) (Point, error) {
	var at int64
	var r, b, v sql.NullInt64
	if err := rows.Scan(&at, &r, &b, &v); err != nil {
		return Point{}, err
	}
	return point(at, r, b, v), nil
}

func point(at int64, r, b, v sql.NullInt64) Point {
	return Point{At: persist.FromMicros(at), Rows: r.Int64, HasRows: r.Valid, Bytes: b.Int64, HasBytes: b.Valid, Version: v.Int64}
}

func nullable(v int64, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

// recordPoints writes a point for each flushed observation whose figures
// differ from its object's previous point, inside the flush's transaction.
// The previous figures are remembered per object; one not remembered yet
// (after a restart) is read from its newest point.
//
// The figures to remember go into seen, applied by the caller once the
// transaction committed: a retried transaction must see the old ones.
func (s *Store) recordPoints(ctx context.Context, tx *persist.Tx, obs []Observation, seen map[key]figures) error {
	s.histMu.Lock()
	on := s.retention > 0
	s.histMu.Unlock()
	if !on || len(obs) == 0 {
		return nil
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO observation_points(object_id, format, observed_at, row_count, bytes, version)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(object_id, format, observed_at) DO NOTHING`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, o := range obs {
		fig, ok := readFigures(o.Attributes)
		if !ok {
			continue // nothing a chart shows
		}
		k := key{o.ObjectID, o.Format}
		s.histMu.Lock()
		last, known := s.lastFig[k]
		s.histMu.Unlock()
		if !known {
			var r, b, v sql.NullInt64
			err := tx.QueryRowContext(ctx, `SELECT row_count, bytes, version FROM observation_points
				WHERE object_id = ? AND format = ? ORDER BY observed_at DESC LIMIT 1`, o.ObjectID, string(o.Format)).Scan(&r, &b, &v)
			switch {
			case err == nil:
				last, known = figures{rows: r.Int64, hasRows: r.Valid, bytes: b.Int64, hasBytes: b.Valid, version: v.Int64}, true
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		if known && last == fig {
			seen[k] = fig
			continue
		}
		if _, err := ins.ExecContext(ctx, o.ObjectID, string(o.Format), persist.Micros(o.ObservedAt),
			nullable(fig.rows, fig.hasRows), nullable(fig.bytes, fig.hasBytes), fig.version); err != nil {
			return err
		}
		seen[k] = fig
	}
	return nil
}

// rememberFigures keeps objects' last figures, bounded like the store.
func (s *Store) rememberFigures(seen map[key]figures) {
	s.histMu.Lock()
	defer s.histMu.Unlock()
	for k, f := range seen {
		if s.lastFig == nil || len(s.lastFig) >= s.cap {
			s.lastFig = map[key]figures{} // start over: misses read the newest point
		}
		s.lastFig[k] = f
	}
}

// prunePoints deletes points past the retention and beyond each object's
// newest MaxPointsPerObject, at most every historyPruneEvery.
func (s *Store) prunePoints(ctx context.Context, tx *persist.Tx, now time.Time) error {
	s.histMu.Lock()
	due := now.Sub(s.prunedAt) >= historyPruneEvery
	retention := s.retention
	if due {
		s.prunedAt = now
	}
	s.histMu.Unlock()
	if !due {
		return nil
	}
	cutoff := now.Add(-retention)
	if retention <= 0 {
		cutoff = now.Add(time.Hour) // history off: drop every point
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM observation_points WHERE observed_at < ?`, persist.Micros(cutoff)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM observation_points WHERE (object_id, format, observed_at) IN (
		SELECT object_id, format, observed_at FROM (
			SELECT object_id, format, observed_at,
				ROW_NUMBER() OVER (PARTITION BY object_id, format ORDER BY observed_at DESC) AS n
			FROM observation_points) ranked
		WHERE n > `+strconv.Itoa(MaxPointsPerObject)+`)`)
	return err
}

// readFigures reads rows, bytes (Lance) or data_bytes (Iceberg) and
// version or current_snapshot_id from the top level of an observation's
// attributes with a scan that skips every other value unparsed: this runs
// for every flushed observation, whose attributes may hold a long history
// and schema. ok is false when neither rows nor bytes is there.
func readFigures(attrs []byte) (f figures, ok bool) {
	sc := topLevel{b: attrs}
	for {
		k, v, more := sc.next()
		if !more {
			break
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			if fl, ferr := strconv.ParseFloat(string(v), 64); ferr == nil {
				n, err = int64(fl), nil
			}
		}
		if err != nil {
			continue
		}
		switch k {
		case "rows":
			f.rows, f.hasRows = n, true
		case "bytes", "data_bytes":
			f.bytes, f.hasBytes = n, true
		case "version", "current_snapshot_id":
			f.version = n
		}
	}
	return f, f.hasRows || f.hasBytes
}

// topLevel walks the members of a JSON object without decoding values:
// next returns a key (escapes left as they are: the keys read have none)
// and the raw text of its value. Malformed input ends the walk.
type topLevel struct {
	b     []byte
	i     int
	begun bool
}

func (t *topLevel) skipSpace() {
	for t.i < len(t.b) && (t.b[t.i] == ' ' || t.b[t.i] == '\n' || t.b[t.i] == '\t' || t.b[t.i] == '\r') {
		t.i++
	}
}

func (t *topLevel) next() (key string, value []byte, ok bool) {
	t.skipSpace()
	if !t.begun {
		if t.i >= len(t.b) || t.b[t.i] != '{' {
			return "", nil, false
		}
		t.i++
		t.begun = true
	} else if t.i < len(t.b) && t.b[t.i] == ',' {
		t.i++
	}
	t.skipSpace()
	if t.i >= len(t.b) || t.b[t.i] != '"' {
		return "", nil, false
	}
	ks := t.i + 1
	ke := t.skipString()
	if ke < 0 {
		return "", nil, false
	}
	key = string(t.b[ks:ke])
	t.skipSpace()
	if t.i >= len(t.b) || t.b[t.i] != ':' {
		return "", nil, false
	}
	t.i++
	t.skipSpace()
	vs := t.i
	if !t.skipValue() {
		return "", nil, false
	}
	return key, t.b[vs:t.i], true
}

// skipString moves past a string starting at t.i ('"'), returning the
// index of its closing quote (-1 if there is none).
func (t *topLevel) skipString() int {
	t.i++
	for t.i < len(t.b) {
		switch t.b[t.i] {
		case '\\':
			t.i += 2
			continue
		case '"':
			end := t.i
			t.i++
			return end
		}
		t.i++
	}
	return -1
}

// skipValue moves past one value of any kind, nested ones by depth.
func (t *topLevel) skipValue() bool {
	depth := 0
	for t.i < len(t.b) {
		switch c := t.b[t.i]; {
		case c == '"':
			if t.skipString() < 0 {
				return false
			}
			if depth == 0 {
				return true
			}
			continue
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return true // the end of the object itself: an empty value is malformed, stop here
			}
			depth--
			if depth == 0 {
				t.i++
				return true
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			return true
		}
		t.i++
	}
	return depth == 0
}
