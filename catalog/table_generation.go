package catalog

import "context"

// TableGeneration is a number that changes whenever any table entry changes,
// in this process or another (table_generation triggers). A surface that
// caches something derived from table rows compares it to know the cache
// still holds.
//
// With the read cache on it is the generation the cache confirmed under
// its current stamp, so it costs no query while nothing was written; a
// change on another replica moves it once its notification has arrived,
// the read cache's own bound (see tableCache).
func (s *Store) TableGeneration(ctx context.Context) (int64, error) {
	gen, err := s.tableGen(ctx)
	if err != nil {
		return 0, dbErr("read table generation", err)
	}
	return gen, nil
}

// tableGen is TableGeneration without the error's wording.
func (s *Store) tableGen(ctx context.Context) (int64, error) {
	if _, g, ok := s.tables.stamped(ctx); ok {
		return g.tables, nil
	}
	return s.tableGeneration(ctx)
}

// BucketTableGenerations returns, for every bucket, a number that changes
// whenever any of its tables changes, in this process or another
// (migration 0029's triggers): a summary kept per bucket rereads only the
// buckets whose number moved.
//
// By name, so PostgreSQL reads it through the key's index: every table
// change rewrites its bucket's row, so after a bulk create (10,000 tables in
// one transaction leave 10,000 row versions) the heap of a hundred buckets
// can span 2,000 pages, which a sequential scan reads in full (0.4 ms at
// 100,000 tables; the index reads the hundred live rows, 0.05 ms).
func (s *Store) BucketTableGenerations(ctx context.Context) (map[string]int64, error) {
	return namedNumbers[int64](ctx, s.ro, "read bucket table generations", `SELECT name, table_gen FROM buckets ORDER BY name`)
}
