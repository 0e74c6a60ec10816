package catalog

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"
)

// SearchKind is what a search hit names.
type SearchKind string

const (
	SearchBucket    SearchKind = "bucket"
	SearchNamespace SearchKind = "namespace"
	SearchTable     SearchKind = "table"
	SearchView      SearchKind = "view"
)

// SearchHit is one bucket, namespace, table or view whose name matched.
type SearchHit struct {
	Kind      SearchKind
	Bucket    string
	Namespace []string // a namespace hit: the namespace itself; a bucket hit: nil
	Name      string   // the bucket's, namespace's (levels joined by '.'), table's or view's name
	Format    Format   // a bucket's declared format, a table's format; unset for namespaces
	// Prefix reports that the name starts with the query (Exact: is it).
	Prefix, Exact bool
}

// SearchOptions narrow a search.
type SearchOptions struct {
	// Limit is the most hits returned (<= 0 or above MaxSearchLimit:
	// MaxSearchLimit).
	Limit int
	// Buckets keeps only hits inside these buckets (nil = every bucket,
	// empty = none): where a caller's read scope comes in.
	Buckets []string
}

// MaxSearchLimit bounds one search's hits: a results list is read by eye,
// and each hit costs a row read.
const MaxSearchLimit = 100

// MaxSearchQuery bounds the query: no name is longer than 255 characters.
const MaxSearchQuery = 255

// shortQuery is the length under which a query matches name prefixes only:
// trigram indexes (FTS5's and pg_trgm's) find substrings of three or more
// characters; a shorter one would be a scan of every name.
const shortQuery = 3

// NormalizeSearch trims a search query and cuts it to MaxSearchQuery bytes
// (at a character's boundary); ok is false when it holds what no name can
// hold (a '/', a '$', a non-printing character: NameRule), so it cannot
// match anything. Case is kept for display; Search compares letters A-Z
// without case.
func NormalizeSearch(q string) (norm string, ok bool) {
	q = strings.TrimSpace(q)
	if len(q) > MaxSearchQuery {
		cut := MaxSearchQuery
		for cut > 0 && !utf8.RuneStart(q[cut]) {
			cut--
		}
		q = q[:cut]
	}
	return q, filterCanMatch(q)
}

// foldASCII lower-cases A-Z only, as SQLite's lower() and PostgreSQL's
// under the "C" collation do, so the query and the index fold alike.
func foldASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// searchPrefixSQL finds names starting with a folded query: a range of
// search_docs_by_name_lower, on SQLite and PostgreSQL alike.
const searchPrefixSQL = `SELECT d.kind, d.bucket, d.namespace, d.name, d.format FROM search_docs d
	WHERE lower(d.name) >= ? AND lower(d.name) < ?`

// afterPrefix is appended to a prefix for the upper end of its range: no
// UTF-8 text sorts after U+10FFFF, byte by byte.
const afterPrefix = "\U0010FFFF"

// Search finds buckets, namespaces, tables and views whose names contain
// query, letters A-Z compared without case (queries shorter than three
// characters match name prefixes only). Exact names come first, then names starting with the
// query, then the rest; shorter names before longer ones. more reports that
// there were hits beyond the limit. The lookups go through search_docs'
// indexes (migration 0023), never a scan of the catalog, so a search costs
// about the same over 100 tables as over 100,000.
func (s *Store) Search(ctx context.Context, query string, opt SearchOptions) (hits []SearchHit, more bool, err error) {
	q, ok := NormalizeSearch(query)
	if q == "" {
		return nil, false, nil
	}
	if !ok {
		return nil, false, Invalid("q", "no name holds a '/', a '$' or a non-printing character, so nothing matches this search")
	}
	if opt.Buckets != nil && len(opt.Buckets) == 0 {
		return nil, false, nil
	}
	limit := opt.Limit
	if limit <= 0 || limit > MaxSearchLimit {
		limit = MaxSearchLimit
	}
	scope, scopeArgs := "", []any(nil)
	if opt.Buckets != nil {
		scope = " AND d.bucket IN (?" + strings.Repeat(", ?", len(opt.Buckets)-1) + ")"
		for _, b := range opt.Buckets {
			scopeArgs = append(scopeArgs, b)
		}
	}
	postgres := s.db.Dialect().Name == "postgres"

	// Names starting with the query: a range of the folded name index
	// (migration 0030).
	fold := foldASCII(q)
	prefixSQL := searchPrefixSQL + scope + ` LIMIT ?`
	prefixArgs := append([]any{fold, fold + afterPrefix}, scopeArgs...)
	found, err := s.searchRows(ctx, prefixSQL, append(prefixArgs, limit+1)...)
	if err != nil {
		return nil, false, err
	}
	more = len(found) > limit
	if utf8.RuneCountInString(q) >= shortQuery {
		// Anywhere in the name, through the trigram index. A quoted FTS5
		// string is a phrase of the query's trigrams: a substring match
		// (the trigram tokenizer folds case); ILIKE is pg_trgm's.
		subSQL := `SELECT d.kind, d.bucket, d.namespace, d.name, d.format FROM search_fts f JOIN search_docs d ON d.id = f.rowid
			WHERE search_fts MATCH ?` + scope + ` LIMIT ?`
		subArgs := append([]any{`"` + strings.ReplaceAll(q, `"`, `""`) + `"`}, scopeArgs...)
		if postgres {
			subSQL = `SELECT d.kind, d.bucket, d.namespace, d.name, d.format FROM search_docs d WHERE d.name ILIKE ? ESCAPE '\'` + scope + ` LIMIT ?`
			subArgs = append([]any{"%" + likeEscape(q) + "%"}, scopeArgs...)
		}
		sub, err := s.searchRows(ctx, subSQL, append(subArgs, 2*limit+1)...)
		if err != nil {
			return nil, false, err
		}
		more = more || len(sub) > 2*limit
		found = append(found, sub...)
	}
	// A deleted bucket that still holds recently deleted tables keeps its
	// row (and so its search entry) until the last is purged; search, like
	// every live listing, skips it.
	gone, err := s.deletedBucketNames(ctx)
	if err != nil {
		return nil, false, err
	}
	seen := make(map[string]bool, len(found))
	for _, h := range found {
		if gone[h.Bucket] {
			continue
		}
		name := foldASCII(h.Name)
		h.Prefix, h.Exact = strings.HasPrefix(name, fold), name == fold
		key := string(h.Kind) + "\x00" + h.Bucket + "\x00" + JoinNamespace(h.Namespace) + "\x00" + h.Name
		if seen[key] {
			continue
		}
		seen[key] = true
		hits = append(hits, h)
	}
	slices.SortFunc(hits, compareHits)
	if len(hits) > limit {
		hits, more = hits[:limit], true
	}
	return hits, more, nil
}

var kindOrder = map[SearchKind]int{SearchBucket: 0, SearchNamespace: 1, SearchTable: 2, SearchView: 3}

func compareHits(a, b SearchHit) int {
	rank := func(h SearchHit) int {
		switch {
		case h.Exact:
			return 0
		case h.Prefix:
			return 1
		}
		return 2
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(len(a.Name), len(b.Name)),
		cmp.Compare(kindOrder[a.Kind], kindOrder[b.Kind]), cmp.Compare(a.Bucket, b.Bucket),
		cmp.Compare(JoinNamespace(a.Namespace), JoinNamespace(b.Namespace)), cmp.Compare(a.Name, b.Name))
}

func (s *Store) searchRows(ctx context.Context, query string, args ...any) ([]SearchHit, error) {
	rows, err := s.ro.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbErr("search", err)
	}
	defer rows.Close()
	var out []SearchHit
	for rows.Next() {
		var h SearchHit
		var kind, ns, format string
		if err := rows.Scan(&kind, &h.Bucket, &ns, &h.Name, &format); err != nil {
			return nil, dbErr("search", err)
		}
		h.Kind, h.Format, h.Namespace = SearchKind(kind), Format(format), SplitNamespace(ns)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("search", err)
	}
	return out, nil
}

// likeEscape escapes LIKE's wildcards ('_' is one, and names hold it).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// deletedBucketNames are the buckets deleted but kept for their recently
// deleted tables (few: they go once those are purged).
func (s *Store) deletedBucketNames(ctx context.Context) (map[string]bool, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT name FROM buckets WHERE deleted_at <> 0`)
	if err != nil {
		return nil, dbErr("search", err)
	}
	defer rows.Close()
	var gone map[string]bool
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, dbErr("search", err)
		}
		if gone == nil {
			gone = map[string]bool{}
		}
		gone[name] = true
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("search", err)
	}
	return gone, nil
}
