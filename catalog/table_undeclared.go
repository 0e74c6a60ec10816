package catalog

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
)

// listUndeclared is one page of a listing that leaves only-declared Lance
// tables out, with declared tables that got data since shown as written.
// Whether a declared table has data is a storage check, so the page is
// built to need at most limit of them whatever the namespace holds:
//
//  1. read the first limit+1 tables recorded as not declared (after the
//     cursor): without changes the page would end at the limit-th;
//  2. read at most limit+1 declared Lance tables before that name and
//     check at most limit of them (with the read cache on, those not
//     checked in the last declaredRecheck: checkDeclared); if more remain
//     unchecked, the page ends
//     at the last one checked (it may then be short, even empty, with a
//     next token: the caller pages on and the next call checks the next
//     run of declared tables);
//  3. merge the two sorted runs.
//
// cols and scan choose what step 1 reads (names only, or whole rows).
func (s *Store) listUndeclared(ctx context.Context, where string, args []any, f Format, limit int,
	cols string, scan func(*sql.Rows) (Table, error)) (items []Table, next string, err error) {
	written, err := s.queryTables(ctx, `SELECT `+cols+` FROM tables WHERE `+where+
		` AND state <> 'declared' ORDER BY name LIMIT ?`, append(slices.Clone(args), limit+1), scan)
	if err != nil {
		return nil, "", err
	}
	var created []Table
	stop := "" // the page ends at this name ("" = wherever the rows end)
	if f == FormatUnset || f == FormatLance {
		dWhere, dArgs := where+` AND state = 'declared' AND format = 'LANCE'`, slices.Clone(args)
		if len(written) > limit {
			dWhere += ` AND name < ?`
			dArgs = append(dArgs, written[limit-1].Name)
		}
		// What a check needs only: a page of 1,000 declared tables is read
		// on every call, and decoding whole rows (properties) would cost
		// more than the rest of the listing.
		declared, err := s.queryTables(ctx, `SELECT id, name, location FROM tables WHERE `+dWhere+
			` ORDER BY name LIMIT ?`, append(dArgs, limit+1), scanDeclared)
		if err != nil {
			return nil, "", err
		}
		if len(declared) > limit {
			declared = declared[:limit]
			stop = declared[limit-1].Name
		}
		now := s.now()
		for _, t := range declared {
			if t, err = s.checkDeclared(ctx, t, now); err != nil {
				return nil, "", err
			}
			if t.State == StateDeclared {
				continue
			}
			if cols == tableColumns { // whole rows wanted: read this one's (rare: once per table)
				t, err = s.scanTable(s.ro.QueryRowContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE id = ?`, t.ID))
				if errors.Is(err, sql.ErrNoRows) {
					continue // dropped meanwhile
				}
				if err != nil {
					return nil, "", dbErr("list tables", err)
				}
				t.State = StateCreated // storage is the truth, even if recording it failed
			}
			created = append(created, t)
		}
	}
	items = mergeByName(written, created)
	if stop != "" {
		// Everything up to stop was seen; what lies beyond waits for the
		// next page.
		end, _ := slices.BinarySearchFunc(items, stop, func(t Table, n string) int { return strings.Compare(t.Name, n) })
		if end < len(items) && items[end].Name == stop {
			end++
		}
		if end <= limit {
			return items[:end], stop, nil
		}
	}
	if len(items) > limit {
		items = items[:limit]
		next = items[limit-1].Name
	}
	return items, next, nil
}

// mergeByName merges two runs sorted by name (names are unique).
func mergeByName(a, b []Table) []Table {
	if len(b) == 0 {
		return a
	}
	out := make([]Table, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].Name < b[0].Name {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

func (s *Store) queryTables(ctx context.Context, query string, args []any, scan func(*sql.Rows) (Table, error)) ([]Table, error) {
	rows, err := s.ro.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbErr("list tables", err)
	}
	defer rows.Close()
	var out []Table
	for rows.Next() {
		t, err := scan(rows)
		if err != nil {
			return nil, dbErr("list tables", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("list tables", err)
	}
	return out, nil
}

func (s *Store) scanRows(rows *sql.Rows) (Table, error) { return s.scanTable(rows) }

func scanName(rows *sql.Rows) (Table, error) {
	var t Table
	err := rows.Scan(&t.Name)
	return t, err
}

func scanDeclared(rows *sql.Rows) (Table, error) {
	t := Table{Format: FormatLance, State: StateDeclared}
	err := rows.Scan(&t.ID, &t.Name, &t.Location)
	return t, err
}
