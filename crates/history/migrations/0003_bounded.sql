-- A bounded history. Results move to a table of their own, so that listing and searching
-- calls never walks a large result's pages; each call keeps its result's whole size and,
-- when the result was cut, the SHA-256 of what was cut off. A trigram index (any substring of
-- three characters or more) covers the tool, the server, the arguments, the name and the
-- first 4 KiB of the result; crates/history keeps it current.
ALTER TABLE calls ADD COLUMN result_bytes INTEGER;
ALTER TABLE calls ADD COLUMN cut_sha256 TEXT;

CREATE TABLE call_results (
    id     INTEGER PRIMARY KEY,
    result TEXT NOT NULL
);
INSERT INTO call_results (id, result) SELECT id, result FROM calls WHERE result IS NOT NULL;
UPDATE calls SET result_bytes = (SELECT length(CAST(r.result AS BLOB)) FROM call_results r WHERE r.id = calls.id);

CREATE VIRTUAL TABLE calls_text USING fts5(text, tokenize = 'trigram');
INSERT INTO calls_text (rowid, text)
    SELECT id, tool || char(10) || server || char(10) || arguments || char(10) || coalesce(name, '') || char(10) || substr(coalesce(result, ''), 1, 4096)
    FROM calls;
UPDATE calls SET result = NULL;

CREATE TRIGGER calls_forgotten AFTER DELETE ON calls BEGIN
    DELETE FROM calls_text WHERE rowid = old.id;
    DELETE FROM call_results WHERE id = old.id;
END;
CREATE INDEX calls_unnamed_by_id ON calls (id) WHERE name IS NULL;
