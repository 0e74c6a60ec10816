-- The recently deleted buckets, by name: a handful at most, looked up on
-- the buckets page and by console search. Without it PostgreSQL scans the
-- buckets heap, which every table change rewrites a row of (table_count,
-- table_gen), so after bulk creates it spans thousands of pages for a
-- hundred live rows.
CREATE INDEX buckets_deleted ON buckets (name) WHERE deleted_at <> 0;
