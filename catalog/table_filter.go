package catalog

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The console's name filter (ListTablesOptions.NameFilter) is answered
// from an index wherever one answers it, so a filtered page of a namespace
// of 100,000 tables costs about what it does over 1,000 (issue 27):
//   - a filter of three or more characters matches anywhere in the name,
//     case-sensitively. In a large namespace the trigram index of the
//     console search (search_docs, migration 0023) finds the names that may
//     match, and each is then checked exactly, by the same substring test
//     the scan applies, so both give the same answer;
//   - a filter of one or two characters matches names starting with it: a
//     range of the tables' name index. A substring that short has no
//     trigram, so "anywhere" would be a scan of every name;
//   - a filter no name can contain (a '/', a '$', a non-printing character,
//     text that is not UTF-8, more bytes than a name holds) matches nothing
//     and reads nothing.
//
// The trigram index spans the whole catalog, so where a filter's trigrams
// are common (many tables anywhere hold them), or the namespace is small,
// scanning the namespace's names costs less; filterWay chooses by counting
// the index's candidates, up to what the scan would cost.

// filterScanTables is the namespace size up to which a long filter scans
// the names: 2,000 names are scanned in about a millisecond, what the
// index lookup and its candidate count cost anyway.
const filterScanTables = 2_000

// filterCandidateShare is how many of the namespace's names a scan reads
// for the cost of one candidate of the index (found in the index, its
// search_docs row read, its tables row sought): the index is used while it
// has at most one candidate per filterCandidateShare tables of the
// namespace. Measured with BenchmarkNamespaceFilter.
const filterCandidateShare = 20

// NameFilterMatches reports whether a table name passes the console's name
// filter q (see ListTablesOptions.NameFilter): every listing that filters
// by name outside the catalog's queries (the sorted and needs-attention
// lists, a user's granted tables) applies this same rule.
func NameFilterMatches(name, q string) bool {
	switch {
	case q == "":
		return true
	case NameFilterPrefix(q):
		return strings.HasPrefix(name, q)
	}
	return strings.Contains(name, q)
}

// NameFilterPrefix reports whether q is short enough (one or two
// characters) to match only the start of names.
func NameFilterPrefix(q string) bool {
	n := utf8.RuneCountInString(q)
	return n > 0 && n < shortQuery
}

// filterCanMatch reports whether some table name could pass the filter q:
// none holds more than maxNameLevel bytes, anything but UTF-8, a '/', a
// '$' or a non-printing character (validateLevelName).
func filterCanMatch(q string) bool {
	if len(q) > maxNameLevel || !utf8.ValidString(q) {
		return false
	}
	for _, r := range q {
		if r == '/' || r == '$' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// nameCond is a condition on the tables' name column and its arguments;
// a zero nameCond is no condition.
type nameCond struct {
	sql  string
	args []any
}

// filterWay is how a listing applies its name filter.
type filterWay int

const (
	filterNone   filterWay = iota // no filter
	filterEmpty                   // nothing can match: a constant false
	filterPrefix                  // a range of the name index
	filterScan                    // the substring test on each of the namespace's names
	filterIndex                   // the trigram index's candidates, each tested
)

// filterPlan is the condition that applies opt.NameFilter to the tables
// directly in bucket's namespace ns (joined).
func (s *Store) filterPlan(ctx context.Context, bucket, ns string, opt ListTablesOptions) (nameCond, error) {
	way, err := s.filterWay(ctx, bucket, ns, opt)
	if err != nil {
		return nameCond{}, err
	}
	return s.filterCond(way, bucket, ns, opt.NameFilter), nil
}

// filterWay chooses as the comment at the top of this file says.
func (s *Store) filterWay(ctx context.Context, bucket, ns string, opt ListTablesOptions) (filterWay, error) {
	q := opt.NameFilter
	switch {
	case q == "":
		return filterNone, nil
	case !filterCanMatch(q):
		return filterEmpty, nil
	case NameFilterPrefix(q):
		return filterPrefix, nil
	case opt.IncludeDeregistered || !s.trigramsFor(q): // search_docs leaves deregistered tables out
		return filterScan, nil
	}
	var tables int
	if err := s.ro.QueryRowContext(ctx, `SELECT table_count FROM namespaces WHERE bucket = ? AND name = ?`, bucket, ns).Scan(&tables); err != nil {
		return 0, dbErr("filter tables", err)
	}
	if tables <= filterScanTables {
		return filterScan, nil
	}
	// The count costs about what a listing through the index does, and
	// the namespace page lists twice (the count of matches, then the
	// page): it is made once per catalog state.
	gen, genErr := s.tableGen(ctx)
	key := bucket + "\x00" + ns + "\x00" + q
	if genErr == nil {
		if way, ok := s.ways.get(key, gen); ok {
			return way, nil
		}
	}
	limit := tables / filterCandidateShare
	count := `SELECT COUNT(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH ? LIMIT ?) c`
	if s.db.Dialect().Name == "postgres" {
		count = `SELECT COUNT(*) FROM (SELECT 1 FROM search_docs d WHERE d.name LIKE ? ESCAPE '\' LIMIT ?) c`
	}
	var candidates int
	if err := s.ro.QueryRowContext(ctx, count, s.trigramArg(q), limit+1).Scan(&candidates); err != nil {
		return 0, dbErr("filter tables", err)
	}
	way := filterIndex
	if candidates > limit {
		way = filterScan
	}
	if genErr == nil {
		s.ways.put(key, gen, way)
	}
	return way, nil
}

// maxCachedWays bounds the remembered filter choices: a few people typing
// filters on a few namespaces; past it the cache restarts.
const maxCachedWays = 256

// wayCache remembers the way chosen for a filter in a namespace with the
// table generation it was chosen at, as listCache does listings.
type wayCache struct {
	mu sync.Mutex
	m  map[string]cachedWay
}

type cachedWay struct {
	gen int64
	way filterWay
}

func (c *wayCache) get(key string, gen int64) (filterWay, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	return e.way, ok && e.gen == gen
}

func (c *wayCache) put(key string, gen int64, way filterWay) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedWays {
		c.m = make(map[string]cachedWay)
	}
	c.m[key] = cachedWay{gen, way}
}

// filterCond is the condition of a way to apply the filter q.
func (s *Store) filterCond(way filterWay, bucket, ns, q string) nameCond {
	scan := nameCond{sql: fmt.Sprintf(s.db.Dialect().Contains, "name"), args: []any{q}}
	switch way {
	case filterEmpty:
		return nameCond{sql: "1 = 0"} // a constant: neither database reads a row for it
	case filterPrefix:
		return nameCond{sql: "name >= ? AND name < ?", args: []any{q, prefixEnd(q)}}
	case filterScan:
		return scan
	case filterIndex:
		// The candidates in this namespace, then the exact test: FTS5's
		// trigram index folds case, and the scan's test is what the
		// filter means.
		candidates := `SELECT d.name FROM ` + s.trigramSource() + ` AND d.kind = 'table' AND d.bucket = ? AND d.namespace = ?`
		in := `name IN (` + candidates + `)`
		if s.db.Dialect().Name == "postgres" {
			// As an array computed first, so the planner seeks each name
			// in tables_by_name: as a join it weighs a seek at four pages
			// and takes a scan of the namespace for a few hundred names.
			in = `name = ANY(ARRAY(` + candidates + `))`
		}
		return nameCond{sql: in + ` AND ` + scan.sql, args: []any{s.trigramArg(q), bucket, ns, q}}
	}
	return nameCond{}
}

// trigramSource is the FROM and WHERE of the search_docs rows (as d) whose
// names may contain the trigramArg: FTS5's trigram table on SQLite, the
// pg_trgm index answering LIKE on PostgreSQL (exact there, not only a
// candidate).
func (s *Store) trigramSource() string {
	if s.db.Dialect().Name == "postgres" {
		return `search_docs d WHERE d.name LIKE ? ESCAPE '\'`
	}
	return `search_fts f JOIN search_docs d ON d.id = f.rowid WHERE search_fts MATCH ?`
}

func (s *Store) trigramArg(q string) string {
	if s.db.Dialect().Name == "postgres" {
		return "%" + likeEscape(q) + "%"
	}
	// One FTS5 string: the phrase of q's trigrams, a substring match; a
	// '"' inside is doubled.
	return `"` + strings.ReplaceAll(q, `"`, `""`) + `"`
}

// trigramsFor reports whether the trigram index narrows the search for q.
// FTS5's trigram tokenizer indexes every character, so any three do;
// pg_trgm keeps only letters and digits (which letters depends on the
// database's locale), so there q needs three ASCII letters or digits in a
// row, or the index would be read whole.
func (s *Store) trigramsFor(q string) bool {
	if s.db.Dialect().Name != "postgres" {
		return true
	}
	run := 0
	for i := 0; i < len(q); i++ {
		if c := q[i]; isLowerAlnum(c) || c >= 'A' && c <= 'Z' {
			if run++; run == shortQuery {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// prefixEnd is the least string above every string starting with q (names
// compare byte by byte, which for UTF-8 is code point order): q with its
// last character raised by one. q can match (filterCanMatch), so its last
// character is printable and never the last code point.
func prefixEnd(q string) string {
	r, n := utf8.DecodeLastRuneInString(q)
	r++
	if r >= 0xD800 && r <= 0xDFFF { // surrogates are not characters
		r = 0xE000
	}
	return q[:len(q)-n] + string(r)
}
