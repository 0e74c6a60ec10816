package catalog

import "context"

// TableGeneration is a number that changes whenever any table entry changes,
// in this process or another (table_generation triggers). A surface that
// caches something derived from table rows compares it to know the cache
// still holds.
func (s *Store) TableGeneration(ctx context.Context) (int64, error) {
	gen, err := s.tableGeneration(ctx)
	if err != nil {
		return 0, dbErr("read table generation", err)
	}
	return gen, nil
}
