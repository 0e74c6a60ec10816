package catalog

import (
	"context"
	"time"
)

// TableKey is the little of a table that a whole-catalog summary needs.
type TableKey struct {
	ID         string
	Bucket     string
	Namespace  string // levels joined as JoinNamespace joins them
	Name       string
	Format     Format
	State      LanceState // as stored: a declared table is not re-checked on storage
	CreatedAt  time.Time
	ModifiedAt time.Time
}

// TableKeys lists every table that is not deregistered, sorted by bucket,
// namespace and name; bucket "" means every bucket, ns nil every namespace
// of it. One query reading a few short columns, no state refresh and no
// storage access: for aggregates (health counts per bucket, the "needs
// attention" filter) that must look at every table yet stay cheap.
func (s *Store) TableKeys(ctx context.Context, bucket string, ns []string) ([]TableKey, error) {
	q := `SELECT id, bucket, namespace, name, format, state, created_at, modified_at FROM tables WHERE state <> 'deregistered'`
	var args []any
	if bucket != "" {
		q += ` AND bucket = ?`
		args = append(args, bucket)
		if ns != nil {
			q += ` AND namespace = ?`
			args = append(args, JoinNamespace(ns))
		}
	}
	rows, err := s.ro.QueryContext(ctx, q+` ORDER BY bucket, namespace, name`, args...)
	if err != nil {
		return nil, dbErr("list table keys", err)
	}
	defer rows.Close()
	var out []TableKey
	for rows.Next() {
		var k TableKey
		var format, state string
		var created, mod int64
		if err := rows.Scan(&k.ID, &k.Bucket, &k.Namespace, &k.Name, &format, &state, &created, &mod); err != nil {
			return nil, dbErr("list table keys", err)
		}
		k.Format, k.State, k.CreatedAt, k.ModifiedAt = Format(format), LanceState(state), fromMicros(created), fromMicros(mod)
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("list table keys", err)
	}
	return out, nil
}
