-- Tags on tables, as S3 Tables keeps them (CreateTable's tags,
-- TagResource on a table ARN): a JSON object of strings, like buckets.tags.
-- Not table properties: those belong to the table's format (Lance REST
-- and Iceberg describe them), tags to whoever manages the catalog.
ALTER TABLE tables ADD COLUMN tags TEXT NOT NULL DEFAULT '{}';
