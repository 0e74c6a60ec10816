package catalog

import (
	"context"
	"strconv"
	"strings"
	"sync"
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

func (c *listCache) get(key string, gen int64) (*NamePage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || e.gen != gen {
		return nil, false
	}
	return e.page, true
}

func (c *listCache) put(key string, gen int64, p *NamePage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedListings {
		c.m = make(map[string]cachedListing) // drop all: cheap, and rare
	}
	c.m[key] = cachedListing{gen: gen, page: p}
}

// tableGeneration reads the current table generation.
func (s *Store) tableGeneration(ctx context.Context) (int64, error) {
	var gen int64
	err := s.ro.QueryRowContext(ctx, `SELECT gen FROM table_generation WHERE id = 1`).Scan(&gen)
	return gen, err
}
