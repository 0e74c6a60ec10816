package catalog

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"
)

// tableFilter builds the WHERE clause shared by ListTables, CountTables,
// SkipTables and ListTableNames; name is the name filter's condition
// (filterPlan).
func tableFilter(name nameCond, bucket, ns string, opt ListTablesOptions, after bool) (string, []any) {
	where := []string{"bucket = ?", "namespace = ?"}
	args := []any{bucket, ns}
	if after && opt.After != "" {
		where = append(where, "name > ?")
		args = append(args, opt.After)
	}
	if opt.Format != FormatUnset {
		where = append(where, "format = ?")
		args = append(args, string(opt.Format))
	}
	if name.sql != "" {
		where = append(where, name.sql)
		args = append(args, name.args...)
	}
	if !opt.IncludeDeregistered {
		where = append(where, "state <> 'deregistered'")
	}
	return strings.Join(where, " AND "), args
}

// listFilter checks a listing's bucket and namespace and builds its WHERE
// clause (tableFilter, with the name filter planned).
func (s *Store) listFilter(ctx context.Context, bucket string, ns []string, opt ListTablesOptions, after bool) (string, []any, error) {
	if err := validListTables(bucket, ns); err != nil {
		return "", nil, err
	}
	joined := JoinNamespace(ns)
	name, err := s.filterPlan(ctx, bucket, joined, opt)
	if err != nil {
		return "", nil, err
	}
	where, args := tableFilter(name, bucket, joined, opt, after)
	return where, args, nil
}

func (s *Store) checkListTables(ctx context.Context, bucket string, ns []string) error {
	if err := validListTables(bucket, ns); err != nil {
		return err
	}
	return s.requireNamespace(ctx, s.ro, bucket, JoinNamespace(ns))
}

func validListTables(bucket string, ns []string) error {
	if err := validateBucket("bucket", bucket); err != nil {
		return err
	}
	return validateNamespace(ns)
}

// requireNamespaceIfNone checks the namespace exists when a listing found
// nothing in it. A listing that found a table needs no check: a table row
// cannot outlive its namespace's (foreign key), so the check would be a
// round trip that proves nothing new.
func (s *Store) requireNamespaceIfNone(ctx context.Context, bucket string, ns []string, found bool) error {
	if found {
		return nil
	}
	return s.requireNamespace(ctx, s.ro, bucket, JoinNamespace(ns))
}

// ListTables lists the tables directly in a namespace, sorted by name.
// Deregistered tables appear only with IncludeDeregistered, declared-only
// Lance tables only with IncludeDeclared; without it a page checks at most
// its limit of declared tables on storage (listUndeclared), so it may come
// back short with a next token.
func (s *Store) ListTables(ctx context.Context, bucket string, ns []string, opt ListTablesOptions) (items []Table, next string, err error) {
	where, args, err := s.listFilter(ctx, bucket, ns, opt, true)
	if err != nil {
		return nil, "", err
	}
	limit := pageLimit(opt.Limit)
	if !opt.IncludeDeclared {
		items, next, err := s.listUndeclared(ctx, where, args, opt.Format, limit, tableColumns, s.scanRows)
		if err == nil {
			err = s.requireNamespaceIfNone(ctx, bucket, ns, len(items) > 0 || next != "")
		}
		if err != nil {
			return nil, "", err
		}
		return items, next, nil
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE `+where+` ORDER BY name LIMIT ?`,
		append(args, limit+1)...)
	if err != nil {
		return nil, "", dbErr("list tables", err)
	}
	if items, err = s.scanTables(rows); err != nil {
		return nil, "", err
	}
	if err := s.requireNamespaceIfNone(ctx, bucket, ns, len(items) > 0); err != nil {
		return nil, "", err
	}
	if len(items) > limit {
		items = items[:limit]
		next = items[limit-1].Name
	}
	if err := s.refreshStates(ctx, items); err != nil {
		return nil, "", err
	}
	return items, next, nil
}

// CountTables counts tables in a namespace matching the options (for
// pagination); After and Limit are ignored.
func (s *Store) CountTables(ctx context.Context, bucket string, ns []string, opt ListTablesOptions) (int, error) {
	if err := validListTables(bucket, ns); err != nil {
		return 0, err
	}
	var n int
	if opt.Unfiltered() {
		// Every visible table: the trigger-kept count (migration 0004),
		// read from the namespace's row, so no row is its absence.
		err := s.ro.QueryRowContext(ctx, `SELECT table_count FROM namespaces WHERE bucket = ? AND name = ?`,
			bucket, JoinNamespace(ns)).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, s.requireNamespaceIfNone(ctx, bucket, ns, false)
		}
		if err != nil {
			return 0, dbErr("count tables", err)
		}
		return n, nil
	}
	where, args, err := s.listFilter(ctx, bucket, ns, opt, false)
	if err != nil {
		return 0, err
	}
	if !opt.IncludeDeclared {
		where += " AND state <> 'declared'" // as recorded: see ListTablesOptions
	}
	if err := s.ro.QueryRowContext(ctx, `SELECT COUNT(*) FROM tables WHERE `+where, args...).Scan(&n); err != nil {
		return 0, dbErr("count tables", err)
	}
	if err := s.requireNamespaceIfNone(ctx, bucket, ns, n > 0); err != nil {
		return 0, err
	}
	return n, nil
}

// allTablesCursor is the position after which the next ListAllTables page
// starts; it travels base64-encoded so callers treat it as opaque.
type allTablesCursor struct {
	Bucket    string `json:"b"`
	Namespace string `json:"n"`
	Name      string `json:"t"`
}

// TableCursor is the ListAllTables cursor that starts the page after t: a
// listing that filters what it shows names its next page by the last
// table it showed.
func TableCursor(t Table) string { return encodeCursor(t) }

func encodeCursor(t Table) string {
	b, _ := json.Marshal(allTablesCursor{t.Bucket, JoinNamespace(t.Namespace), t.Name})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (allTablesCursor, error) {
	var c allTablesCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err = dec.Decode(&c)
	}
	// A cursor we issued always names a table; one that decodes to nothing
	// (e30 is "{}") would silently restart the listing.
	if err != nil || c.Bucket == "" || c.Name == "" {
		return c, Invalid("cursor", "cursor is not one this server issued; start again without it")
	}
	return c, nil
}

// ListAllTables lists tables of one format ("" = every format) across every
// bucket in buckets (nil = all, empty = none), sorted by bucket, namespace,
// name; paginated by an opaque cursor. Deregistered tables are left out.
func (s *Store) ListAllTables(ctx context.Context, f Format, buckets []string, cursor string, limit int) (items []Table, next string, err error) {
	items = []Table{}
	if buckets != nil && len(buckets) == 0 {
		return items, "", nil
	}
	where := []string{"state <> 'deregistered'"}
	var args []any
	if f != FormatUnset {
		where = append(where, "format = ?")
		args = append(args, string(f))
	}
	if buckets != nil {
		where = append(where, "bucket IN (?"+strings.Repeat(", ?", len(buckets)-1)+")")
		for _, b := range buckets {
			args = append(args, b)
		}
	}
	if cursor != "" {
		c, err := decodeCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, "(bucket, namespace, name) > (?, ?, ?)")
		args = append(args, c.Bucket, c.Namespace, c.Name)
	}
	limit = pageLimit(limit)
	rows, err := s.ro.QueryContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE `+strings.Join(where, " AND ")+
		` ORDER BY bucket, namespace, name LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, "", dbErr("list tables", err)
	}
	if items, err = s.scanTables(rows); err != nil {
		return nil, "", err
	}
	if len(items) > limit {
		items = items[:limit]
		next = encodeCursor(items[limit-1])
	}
	if err := s.refreshStates(ctx, items); err != nil {
		return nil, "", err
	}
	return items, next, nil
}

// SkipTables returns the After value that starts a ListTables page n
// tables into the listing (n <= 0 gives ""), for numbered pages. It walks
// the index only: no rows are read and no states refreshed for the
// skipped tables, so page 50 costs about what page 1 does.
func (s *Store) SkipTables(ctx context.Context, bucket string, ns []string, opt ListTablesOptions, n int) (string, error) {
	if n <= 0 {
		return "", nil
	}
	where, args, err := s.listFilter(ctx, bucket, ns, opt, true)
	if err != nil {
		return "", err
	}
	if !opt.IncludeDeclared {
		where += " AND state <> 'declared'" // as recorded: see ListTablesOptions
	}
	var name string
	err = s.ro.QueryRowContext(ctx, `SELECT name FROM tables WHERE `+where+` ORDER BY name LIMIT 1 OFFSET ?`,
		append(args, n-1)...).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		// Fewer than n tables: start after the last one, an empty page.
		err = s.ro.QueryRowContext(ctx, `SELECT COALESCE(MAX(name), '') FROM tables WHERE `+where, args...).Scan(&name)
	}
	if err != nil {
		return "", dbErr("skip tables", err)
	}
	return name, nil
}

// ListTableNames is ListTables returning names only: it reads no other
// column and stats nothing unless declared tables are to be left out (then
// at most a page's worth, see listUndeclared), so a catalog API can list a
// thousand tables cheaply. The names are the caller's to change.
func (s *Store) ListTableNames(ctx context.Context, bucket string, ns []string, opt ListTablesOptions) (names []string, next string, err error) {
	p, err := s.ListTableNamePage(ctx, bucket, ns, opt)
	if err != nil {
		return nil, "", err
	}
	return append([]string(nil), p.Names...), p.Next, nil
}

// NamePage is one page of table names. A page ListTableNamePage read from
// its cache is shared by every caller until a table changes: its Names are
// read-only.
type NamePage struct {
	Names []string
	Next  string
	memo  *pageMemo // set on pages that are cached
}

type pageMemo struct {
	once sync.Once
	b    []byte
}

// Memo returns build() computed once for this cached page and kept with it
// (an API's encoded answer, say); on a page not cached it calls build every
// time. One build per page: callers whose answers differ for the same page
// must not share it.
func (p *NamePage) Memo(build func() []byte) []byte {
	if p.memo == nil {
		return build()
	}
	p.memo.once.Do(func() { p.memo.b = build() })
	return p.memo.b
}

// ListTableNamePage is ListTableNames answering from a listing cache that
// any change to any table empties: a repeated listing costs no query while
// nothing was written, one generation read otherwise (cachedListing). A
// cached page that has names also proves its namespace exists (a
// table row needs its namespace's), so only an empty one checks it again.
func (s *Store) ListTableNamePage(ctx context.Context, bucket string, ns []string, opt ListTablesOptions) (*NamePage, error) {
	where, args, err := s.listFilter(ctx, bucket, ns, opt, true)
	if err != nil {
		return nil, err
	}
	limit := pageLimit(opt.Limit)
	if !opt.IncludeDeclared {
		// Depends on storage, not only on rows: never from the cache.
		items, next, err := s.listUndeclared(ctx, where, args, opt.Format, limit, "name", scanName)
		if err == nil {
			err = s.requireNamespaceIfNone(ctx, bucket, ns, len(items) > 0 || next != "")
		}
		if err != nil {
			return nil, err
		}
		p := &NamePage{Names: make([]string, len(items)), Next: next}
		for i, t := range items {
			p.Names[i] = t.Name
		}
		return p, nil
	}
	key := listKey(where, args, limit)
	cached, hit, st, gen, genErr := s.cachedListing(ctx, key)
	if hit {
		if err := s.requireNamespaceIfNone(ctx, bucket, ns, len(cached.Names) > 0); err != nil {
			return nil, err
		}
		return cached, nil
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT name FROM tables WHERE `+where+` ORDER BY name LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, dbErr("list tables", err)
	}
	defer rows.Close()
	names := make([]string, 0, min(limit+1, 128))
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, dbErr("list tables", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("list tables", err)
	}
	if err := s.requireNamespaceIfNone(ctx, bucket, ns, len(names) > 0); err != nil {
		return nil, err
	}
	p := &NamePage{Names: names}
	if len(names) > limit {
		p.Names = names[:limit:limit]
		p.Next = names[limit-1]
	}
	if genErr == nil {
		p.memo = &pageMemo{}
		s.lists.put(key, st.entry(gen, p))
	}
	return p, nil
}

// scanTables reads every row of a table query and closes it.
func (s *Store) scanTables(rows *sql.Rows) ([]Table, error) {
	defer rows.Close()
	items := []Table{}
	for rows.Next() {
		t, err := s.scanTable(rows)
		if err != nil {
			return nil, dbErr("list tables", err)
		}
		items = append(items, t)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("list tables", err)
	}
	return items, nil
}

// refreshStates brings declared Lance tables of a page up to date in place
// (checkDeclared).
func (s *Store) refreshStates(ctx context.Context, items []Table) error {
	now := s.now()
	for i := range items {
		t, err := s.checkDeclared(ctx, items[i], now)
		if err != nil {
			return err
		}
		items[i] = t
	}
	return nil
}

// checkDeclared is refreshState for listings: with the read cache on, a
// declared table found without data less than declaredRecheck ago is not
// checked again, so a page listed over and over (a console view, an SDK
// polling) costs at most one storage check per declared table in that time.
func (s *Store) checkDeclared(ctx context.Context, t Table, now time.Time) (Table, error) {
	if !t.declared() {
		return t, nil
	}
	memo := s.tables.on()
	if memo && s.tables.checkedRecently(t.ID, now) {
		return t, nil
	}
	t, err := s.refreshState(ctx, s.ro, t)
	if memo && err == nil && t.declared() {
		s.tables.markChecked(t.ID, now)
	}
	return t, err
}
