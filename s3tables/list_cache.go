package s3tables

import (
	"sync"
)

// maxCachedPages bounds the ListTables page cache: an entry is one rendered
// page (at most maxPage rows, a few hundred KB), and the entries that matter
// are the first pages of the namespaces clients poll.
const maxCachedPages = 64

// rendered is a response body already encoded; ServeHTTP writes it as is.
type rendered []byte

// pageCache keeps rendered ListTables pages with the catalog's table
// generation they were read at; any table change anywhere makes them stale.
type pageCache struct {
	mu sync.Mutex
	m  map[string]cachedPage
}

type cachedPage struct {
	gen  int64
	body rendered
}

func (c *pageCache) get(key string, gen int64) (rendered, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || e.gen != gen {
		return nil, false
	}
	return e.body, true
}

func (c *pageCache) put(key string, gen int64, body rendered) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedPages {
		c.m = make(map[string]cachedPage) // drop all: cheap, and rare
	}
	c.m[key] = cachedPage{gen: gen, body: body}
}
