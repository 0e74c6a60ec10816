-- table_generation counts every change to the tables table, from any
-- process. A reader that cached a listing compares one integer to know the
-- listing is still true (see ListTableNames).
CREATE TABLE table_generation (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    gen INTEGER NOT NULL
);
INSERT INTO table_generation(id, gen) VALUES (1, 0);

CREATE TRIGGER tables_gen_insert AFTER INSERT ON tables
BEGIN
    UPDATE table_generation SET gen = gen + 1 WHERE id = 1;
END;

CREATE TRIGGER tables_gen_delete AFTER DELETE ON tables
BEGIN
    UPDATE table_generation SET gen = gen + 1 WHERE id = 1;
END;

CREATE TRIGGER tables_gen_update AFTER UPDATE ON tables
BEGIN
    UPDATE table_generation SET gen = gen + 1 WHERE id = 1;
END;
