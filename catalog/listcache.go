package catalog

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxCachedListings bounds the name-listing cache: each entry holds at most
// one page (MaxPageSize names), so the cache stays a few MB at worst.
const maxCachedListings = 64

// listCache remembers name listings together with the table generation they
// were read at; any change to any table (from this process or another, via
// the table_generation triggers) makes every entry stale.
type listCache struct {
	mu sync.Mutex
	m  map[string]cachedListing
}

type cachedListing struct {
	gen  int64
	page *NamePage
	// st is the table-entry cache's stamp taken before gen was read
	// (zero when that cache is off): while the stamp holds, nothing was
	// written, so the page is served without reading the generation.
	st      cacheStamp
	stamped bool
	at      time.Time
}

func listKey(where string, args []any, limit int) string {
	var b strings.Builder
	b.WriteString(where)
	for _, a := range args {
		b.WriteByte(0)
		switch v := a.(type) {
		case string:
			b.WriteString(v)
		case int:
			b.WriteString(strconv.Itoa(v))
		default:
			panic("catalog: listKey: unexpected argument type") // tableFilter only binds strings
		}
	}
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(limit))
	return b.String()
}

func (c *listCache) get(key string) (cachedListing, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	return e, ok
}

func (c *listCache) put(key string, e cachedListing) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedListings {
		c.m = make(map[string]cachedListing) // drop all: cheap, and rare
	}
	c.m[key] = e
}

// cachedListing returns the cached page for key if it still holds. While
// the table-entry cache's stamp is the one the page was stamped with, no
// write has happened and no query is needed; otherwise the table
// generation decides (one query), and a page it confirms is stamped anew.
// It also returns what a page read now must be cached with: the stamp and
// the generation, both taken before the caller reads the rows, so a change
// landing in between makes the entry stale at once rather than wrongly
// fresh (genErr: the generation could not be read; cache nothing).
func (s *Store) cachedListing(ctx context.Context, key string) (page *NamePage, hit bool, st listStamp, gen int64, genErr error) {
	st.st, st.ok = s.tables.begin()
	st.at = time.Now()
	e, ok := s.lists.get(key)
	if ok && st.ok && e.stamped && e.st == st.st && st.at.Sub(e.at) <= maxCachedTableAge {
		return e.page, true, st, e.gen, nil
	}
	gen, genErr = s.listGeneration(ctx, st)
	if genErr != nil || !ok || e.gen != gen {
		return nil, false, st, gen, genErr
	}
	s.lists.put(key, st.entry(gen, e.page))
	return e.page, true, st, gen, nil
}

// listStamp is the table-entry cache's stamp as a listing began.
type listStamp struct {
	st cacheStamp
	ok bool // the cache was on and live
	at time.Time
}

func (ls listStamp) entry(gen int64, p *NamePage) cachedListing {
	return cachedListing{gen: gen, page: p, st: ls.st, stamped: ls.ok, at: ls.at}
}

// listGeneration is the table generation as of st: while the read cache
// is live, the one it confirmed under that stamp (shared with the table
// entries: one read per stamp for both), else read now.
func (s *Store) listGeneration(ctx context.Context, st listStamp) (int64, error) {
	if st.ok {
		if g, ok := s.tables.generations(ctx, st.st); ok {
			return g.tables, nil
		}
	}
	return s.tableGeneration(ctx)
}

// generations reads the table and the bucket generation in one query.
func (s *Store) generations(ctx context.Context) (gens, error) {
	var g gens
	err := s.ro.QueryRowContext(ctx, `SELECT t.gen, b.gen FROM table_generation t, bucket_generation b WHERE t.id = 1 AND b.id = 1`).
		Scan(&g.tables, &g.buckets)
	return g, err
}

// tableGeneration reads the current table generation.
func (s *Store) tableGeneration(ctx context.Context) (int64, error) {
	var gen int64
	err := s.ro.QueryRowContext(ctx, `SELECT gen FROM table_generation WHERE id = 1`).Scan(&gen)
	return gen, err
}
