-- A listing that leaves declared Lance tables out walks the namespace's
-- other tables in name order; in a namespace of mostly declared tables the
-- name index would step over every declared one to fill a page. Together
-- with tables_declared this splits the namespace in two, so each half of
-- the listing seeks to its page (catalog.listUndeclared).
CREATE INDEX tables_written ON tables(bucket, namespace, format, name, state) WHERE state <> 'declared';
-- The declared half, in the shape the listing's filter (format, bucket,
-- namespace, name order) seeks by; it replaces the one without format.
DROP INDEX tables_declared;
CREATE INDEX tables_declared ON tables(format, bucket, namespace, name) WHERE state = 'declared';
