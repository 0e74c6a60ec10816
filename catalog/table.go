package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/warehouse"
	"github.com/google/uuid"
)

// DefaultLocation is where a table's data lives in the warehouse, in
// canonical form: <warehouse>/<bucket>/<namespace dir>/<table dir>[.lance],
// the directories named by NamespaceDirName and DirName (a.b/t.lance for
// plain names).
func (s *Store) DefaultLocation(ref TableRef, f Format) string {
	return s.defaultLocation(ref, f).String()
}

func (s *Store) defaultLocation(ref TableRef, f Format) warehouse.Location {
	return s.tableDir(ref, f, "")
}

// tableDir is a table directory in its namespace's directory: the DirName
// of the name with suffix, then ".lance" for Lance.
func (s *Store) tableDir(ref TableRef, f Format, suffix string) warehouse.Location {
	name := DirName(ref.Name + suffix)
	if f == FormatLance {
		name += ".lance"
	}
	return join(s.wh.Root(), ref.Bucket, NamespaceDirName(ref.Namespace), name)
}

func (s *Store) tableARN(bucket, id string) string { return s.bucketARN(bucket) + "/table/" + id }

const tableColumns = `id, bucket, namespace, name, format, location, metadata_location, version_token,
	state, properties, created_at, modified_at`

func (s *Store) scanTable(sc interface{ Scan(...any) error }) (Table, error) {
	var t Table
	var ns, format, state, props string
	var created, modified int64
	if err := sc.Scan(&t.ID, &t.Bucket, &ns, &t.Name, &format, &t.Location, &t.MetadataLocation,
		&t.VersionToken, &state, &props, &created, &modified); err != nil {
		return Table{}, err
	}
	t.Namespace = SplitNamespace(ns)
	t.Format = Format(format)
	t.State = LanceState(state)
	t.Properties = decodeMap(props)
	t.CreatedAt = fromMicros(created)
	t.ModifiedAt = fromMicros(modified)
	t.ARN = s.tableARN(t.Bucket, t.ID)
	return t, nil
}

func (r TableRef) String() string {
	return fmt.Sprintf("%s/%s/%s", r.Bucket, JoinNamespace(r.Namespace), r.Name)
}

func tableNotFound(ref TableRef) error {
	return newErr(fault.NotFound, "table", "table %q does not exist in namespace %q of bucket %q",
		ref.Name, JoinNamespace(ref.Namespace), ref.Bucket)
}

// findTable returns the entry for ref, or ok=false when there is none.
func (s *Store) findTable(ctx context.Context, q querier, ref TableRef) (Table, bool, error) {
	t, err := s.scanTable(q.QueryRowContext(ctx,
		`SELECT `+tableColumns+` FROM tables WHERE bucket = ? AND namespace = ? AND name = ?`,
		ref.Bucket, JoinNamespace(ref.Namespace), ref.Name))
	if errors.Is(err, sql.ErrNoRows) {
		return Table{}, false, nil
	}
	if err != nil {
		return Table{}, false, dbErr("get table", err)
	}
	return t, true, nil
}

// getTable returns the entry for ref or fault.NotFound naming what is missing.
func (s *Store) getTable(ctx context.Context, q querier, ref TableRef) (Table, error) {
	t, ok, err := s.findTable(ctx, q, ref)
	if err != nil {
		return Table{}, err
	}
	if !ok {
		if err := s.requireNamespace(ctx, q, ref.Bucket, JoinNamespace(ref.Namespace)); err != nil {
			return Table{}, err
		}
		return Table{}, tableNotFound(ref)
	}
	return t, nil
}

// GetTable returns a table, deregistered ones included (check State).
func (s *Store) GetTable(ctx context.Context, ref TableRef) (Table, error) {
	if err := validateRef(ref); err != nil {
		return Table{}, err
	}
	k := tableKey{ref.Bucket, JoinNamespace(ref.Namespace), ref.Name}
	now := s.now()
	if t, ok := s.tables.get(ctx, k, now); ok {
		return t, nil
	}
	stamp, g, cacheable := s.tables.stamped(ctx) // before the read: see tableCache
	t, err := s.getTable(ctx, s.ro, ref)
	if err != nil {
		return Table{}, err
	}
	if t, err = s.refreshState(ctx, s.ro, t); err != nil {
		return Table{}, err
	}
	// A declared Lance table becomes created when storage, not the
	// database, changes: its entry is served for declaredRecheck only.
	if cacheable {
		s.tables.put(k, t, stamp, g, now)
	}
	return t, nil
}

// GetTableByID returns a table by its table id.
func (s *Store) GetTableByID(ctx context.Context, id string) (Table, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Table{}, newErr(fault.NotFound, "table_id", "table id %q does not exist", id)
	}
	t, err := s.scanTable(s.ro.QueryRowContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Table{}, newErr(fault.NotFound, "table_id", "table id %q does not exist; the table may have been dropped", id)
	}
	if err != nil {
		return Table{}, dbErr("get table", err)
	}
	return s.refreshState(ctx, s.ro, t)
}

// refreshState moves a declared Lance table to created once its _versions/
// directory exists: one stat, and a write only when the state changes.
func (s *Store) refreshState(ctx context.Context, q querier, t Table) (Table, error) {
	if t.Format != FormatLance || t.State != StateDeclared {
		return t, nil
	}
	loc, err := warehouse.Parse(t.Location)
	if err != nil {
		return t, nil
	}
	ok, err := s.wh.Exists(ctx, join(loc, versionsDir))
	if err != nil || !ok {
		return t, nil // unreadable storage leaves the recorded state as it is
	}
	// Storage is the truth: report created even if recording it fails
	// (another process may hold the write lock); the next read retries.
	_, _ = q.ExecContext(ctx, `UPDATE tables SET state = 'created' WHERE id = ? AND state = 'declared'`, t.ID)
	t.State = StateCreated
	return t, nil
}

// SetLanceState records the observed state (declared → created once a
// _versions/ directory exists).
func (s *Store) SetLanceState(ctx context.Context, id string, st LanceState) error {
	switch st {
	case StateDeclared, StateCreated, StateDeregistered:
	default:
		return Invalid("state", "state must be declared, created or deregistered")
	}
	res, err := s.db.ExecContext(ctx, `UPDATE tables SET state = ?, version_token = ?, modified_at = ? WHERE id = ? AND format = 'LANCE'`,
		string(st), newVersionToken(), micros(s.now()), id)
	if err != nil {
		return dbErr("set table state", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return newErr(fault.NotFound, "table_id", "Lance table id %q does not exist", id)
	}
	return nil
}

// locationUsers lists the other tables whose location overlaps loc: the
// same, inside it, or around it. Stored locations are canonical, so one
// indexed query finds them (equal, the subtree range, the ancestors) and
// Overlaps confirms each.
func (s *Store) locationUsers(ctx context.Context, q querier, loc warehouse.Location, exceptID string) ([]Table, error) {
	where, args := overlapWhere(loc, exceptID)
	rows, err := q.QueryContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE `+where, args...)
	if err != nil {
		return nil, dbErr("check location", err)
	}
	defer rows.Close()
	var out []Table
	for rows.Next() {
		t, err := s.scanTable(rows)
		if err != nil {
			return nil, dbErr("check location", err)
		}
		if other, err := warehouse.Parse(t.Location); err == nil && other.Overlaps(loc) {
			out = append(out, t)
		}
	}
	return out, rows.Err()
}

// overlapWhere is the condition (and its arguments) of the rows other than
// exceptID whose location overlaps loc: the same, inside it (the subtree
// range) or around it (an ancestor). Stored locations are canonical, so the
// condition is indexed; callers confirm each row with Overlaps.
func overlapWhere(loc warehouse.Location, exceptID string) (string, []any) {
	lo, hi := loc.SubtreeRange()
	args := []any{exceptID, loc.String(), lo, hi}
	ancestors := loc.Ancestors()
	for _, a := range ancestors {
		args = append(args, a.String())
	}
	return `id <> ? AND (location = ? OR (location >= ? AND location < ?) OR location IN (''` +
		strings.Repeat(", ?", len(ancestors)) + `))`, args
}
