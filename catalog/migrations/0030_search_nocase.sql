-- Console search compares letters A-Z without case (names keep theirs):
-- the prefix lookup is a range of lower(name), which folds A-Z only (as
-- PostgreSQL's lower() does under the column's "C" collation), as the
-- query is folded.
CREATE INDEX search_docs_by_name_lower ON search_docs (lower(name));
