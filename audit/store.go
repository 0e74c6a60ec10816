package audit

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/floe/floe/persist"
)

// Store reads and writes the audit tables. It is safe for concurrent use.
type Store struct {
	db  *persist.DB
	now func() time.Time
}

// NewStore returns the store over db (migrated by the composition root).
func NewStore(db *persist.DB) *Store { return &Store{db: db, now: time.Now} }

const entryColumns = `seq, id, at, type, surface, operation, writes, refused, principal, via, bucket, namespace, tbl,
	status, fault, request_id, client, method, path, duration_us, data`

// insertColumns is entryColumns without seq, which the database assigns.
const insertColumns = `id, at, type, surface, operation, writes, refused, principal, via, bucket, namespace, tbl,
	status, fault, request_id, client, method, path, duration_us, data`

const insertArity = 20

// maxRowsPerInsert bounds one INSERT's rows: 20 values each stays far
// below SQLite's and PostgreSQL's bind-parameter limits (32,766; 65,535).
const maxRowsPerInsert = 128

// Field bounds: what a client can put into a row (a path, a request id is
// already bounded by the edge) is cut, so the trail cannot be stuffed.
const (
	maxPathBytes = 1024
	maxTextBytes = 256
	maxDataBytes = 16 << 10
)

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// Insert stores entries in one transaction, giving each an id when it has
// none and a time when it has none, and returns them with their seq.
func (s *Store) Insert(ctx context.Context, entries []Entry) ([]Entry, error) {
	for i := range entries {
		e := &entries[i]
		if e.ID == "" {
			id, err := uuid.NewV7()
			if err != nil {
				return nil, fmt.Errorf("audit: make an event id: %w", err)
			}
			e.ID = id.String()
		}
		if e.Time.IsZero() {
			e.Time = s.now()
		}
	}
	err := s.db.Write(ctx, func(tx *persist.Tx) error {
		for start := 0; start < len(entries); start += maxRowsPerInsert {
			chunk := entries[start:min(start+maxRowsPerInsert, len(entries))]
			var q strings.Builder
			q.WriteString(`INSERT INTO audit_events(` + insertColumns + `) VALUES `)
			args := make([]any, 0, len(chunk)*insertArity)
			for i, e := range chunk {
				if i > 0 {
					q.WriteByte(',')
				}
				q.WriteString(`(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
				args = append(args, e.ID, persist.Micros(e.Time), e.Type, clip(e.Surface, maxTextBytes), clip(e.Operation, maxTextBytes),
					boolInt(e.Write), boolInt(e.Refused), clip(e.Principal, maxTextBytes), clip(e.Via, maxTextBytes),
					clip(e.Bucket, maxTextBytes), clip(e.Namespace, maxPathBytes), clip(e.Table, maxTextBytes),
					e.Status, clip(e.Fault, maxTextBytes), clip(e.RequestID, maxTextBytes), clip(e.Client, maxTextBytes),
					clip(e.Method, 16), clip(e.Path, maxPathBytes), e.Duration.Microseconds(), clip(e.Data, maxDataBytes))
			}
			q.WriteString(` RETURNING seq, id`)
			rows, err := tx.QueryContext(ctx, q.String(), args...)
			if err != nil {
				return fmt.Errorf("audit: insert: %w", err)
			}
			// RETURNING's order is not promised, so each seq is matched to
			// its row by id.
			at := make(map[string]int, len(chunk))
			for i, e := range chunk {
				at[e.ID] = i
			}
			for rows.Next() {
				var seq int64
				var id string
				if err := rows.Scan(&seq, &id); err != nil {
					rows.Close()
					return fmt.Errorf("audit: insert: %w", err)
				}
				if i, ok := at[id]; ok {
					chunk[i].Seq = seq
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return fmt.Errorf("audit: insert: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func scanEntry(sc interface{ Scan(...any) error }) (Entry, error) {
	var e Entry
	var at, dur int64
	var w, r int
	err := sc.Scan(&e.Seq, &e.ID, &at, &e.Type, &e.Surface, &e.Operation, &w, &r, &e.Principal, &e.Via,
		&e.Bucket, &e.Namespace, &e.Table, &e.Status, &e.Fault, &e.RequestID, &e.Client, &e.Method, &e.Path, &dur, &e.Data)
	e.Time = persist.FromMicros(at).UTC()
	e.Duration = time.Duration(dur) * time.Microsecond
	e.Write, e.Refused = w != 0, r != 0
	return e, err
}

// Filter selects entries. Zero fields select everything.
type Filter struct {
	// Types keeps entries of these types only (none: every type).
	Types []string
	// Principal keeps one principal's entries ("user:admin").
	Principal string
	// Bucket, Namespace (levels joined by ".") and Table narrow to a
	// resource and what lies inside it: a namespace includes its
	// sub-namespaces' entries.
	Bucket, Namespace, Table string
	// Outcome keeps ok, failed or refused entries.
	Outcome string
	// Since and Until bound the time: Since <= time < Until.
	Since, Until time.Time
	// Before and After are keyset cursors: entries with seq below Before
	// (newest first) or above After (oldest first).
	Before, After int64
	// Limit caps the entries returned (0: DefaultLimit).
	Limit int
}

// DefaultLimit and MaxLimit bound one page of entries.
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	if len(f.Types) > 0 {
		conds = append(conds, `type IN (?`+strings.Repeat(`,?`, len(f.Types)-1)+`)`)
		for _, t := range f.Types {
			args = append(args, t)
		}
	}
	if f.Principal != "" {
		conds = append(conds, `principal = ?`)
		args = append(args, f.Principal)
	}
	if f.Bucket != "" {
		conds = append(conds, `bucket = ?`)
		args = append(args, f.Bucket)
		if f.Namespace != "" {
			if f.Table != "" {
				conds = append(conds, `namespace = ? AND tbl = ?`)
				args = append(args, f.Namespace, f.Table)
			} else {
				// ns itself, or ns.anything (its sub-namespaces): '/' sorts
				// right after '.', so the range holds exactly those.
				conds = append(conds, `(namespace = ? OR (namespace >= ? AND namespace < ?))`)
				args = append(args, f.Namespace, f.Namespace+".", f.Namespace+"/")
			}
		}
	}
	switch f.Outcome {
	case OutcomeRefused:
		conds = append(conds, `refused = 1`)
	case OutcomeFailed:
		conds = append(conds, `refused = 0 AND (status >= 400 OR fault <> '')`)
	case OutcomeOK:
		conds = append(conds, `refused = 0 AND status < 400 AND fault = ''`)
	}
	if !f.Since.IsZero() {
		conds = append(conds, `at >= ?`)
		args = append(args, persist.Micros(f.Since))
	}
	if !f.Until.IsZero() {
		conds = append(conds, `at < ?`)
		args = append(args, persist.Micros(f.Until))
	}
	if f.Before > 0 {
		conds = append(conds, `seq < ?`)
		args = append(args, f.Before)
	}
	if f.After > 0 {
		conds = append(conds, `seq > ?`)
		args = append(args, f.After)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Page is one page of entries, newest first, and the cursor of the next
// (older) page, 0 when there is none.
type Page struct {
	Entries []Entry
	Next    int64
}

// Query returns the newest entries the filter selects, below f.Before.
func (s *Store) Query(ctx context.Context, f Filter) (Page, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	f.After = 0
	where, args := f.where()
	rows, err := s.db.QueryContext(ctx, `SELECT `+entryColumns+` FROM audit_events`+where+
		` ORDER BY seq DESC LIMIT `+fmt.Sprint(limit+1), args...)
	if err != nil {
		return Page{}, fmt.Errorf("audit: query: %w", err)
	}
	defer rows.Close()
	var p Page
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return Page{}, fmt.Errorf("audit: query: %w", err)
		}
		p.Entries = append(p.Entries, e)
	}
	if err := rows.Err(); err != nil {
		return Page{}, fmt.Errorf("audit: query: %w", err)
	}
	if len(p.Entries) > limit {
		p.Entries = p.Entries[:limit]
		p.Next = p.Entries[limit-1].Seq
	}
	return p, nil
}

// exportBatch is how many rows Export reads at a time: the whole trail is
// never held in memory.
const exportBatch = 500

// Export calls fn for every entry the filter selects, oldest first, reading
// in batches; fn's error stops it.
func (s *Store) Export(ctx context.Context, f Filter, fn func(Entry) error) error {
	f.Before, f.Limit = 0, 0
	for {
		page, err := s.after(ctx, f, exportBatch)
		if err != nil {
			return err
		}
		for _, e := range page {
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(page) < exportBatch {
			return nil
		}
		f.After = page[len(page)-1].Seq
	}
}

// after returns up to limit entries with seq above f.After, oldest first.
func (s *Store) after(ctx context.Context, f Filter, limit int) ([]Entry, error) {
	where, args := f.where()
	rows, err := s.db.QueryContext(ctx, `SELECT `+entryColumns+` FROM audit_events`+where+
		` ORDER BY seq LIMIT `+fmt.Sprint(limit), args...)
	if err != nil {
		return nil, fmt.Errorf("audit: read: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("audit: read: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// pruneBatch bounds one prune statement, so a first prune of a long trail
// holds the write lock briefly many times instead of once for long.
const pruneBatch = 5000

// Prune deletes entries older than before and returns how many.
func (s *Store) Prune(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		res, err := s.db.ExecContext(ctx, `DELETE FROM audit_events WHERE seq IN
			(SELECT seq FROM audit_events WHERE at < ? ORDER BY seq LIMIT `+fmt.Sprint(pruneBatch)+`)`, persist.Micros(before))
		if err != nil {
			return total, fmt.Errorf("audit: prune: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
		if n < pruneBatch {
			return total, nil
		}
	}
}

// lastSeq is the newest entry's seq (0 for an empty trail).
func (s *Store) lastSeq(ctx context.Context) (int64, error) {
	var n sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(seq) FROM audit_events`).Scan(&n); err != nil {
		return 0, fmt.Errorf("audit: last entry: %w", err)
	}
	return n.Int64, nil
}
