-- What a server offered (tools with their schemas, resources, templates, prompts, name and
-- version), normalized, each time it differed from the one kept before for that server of
-- that project.
CREATE TABLE surfaces (
    id       INTEGER PRIMARY KEY,
    project  TEXT    NOT NULL,
    server   TEXT    NOT NULL,
    at_ms    INTEGER NOT NULL,
    -- The normalized surface, as JSON text (keys sorted).
    surface  TEXT    NOT NULL
);
CREATE INDEX surfaces_by_server ON surfaces (project, server, id DESC);
