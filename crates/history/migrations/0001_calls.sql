-- Every tool call made by hand, from the window or mcpctl.
CREATE TABLE calls (
    id          INTEGER PRIMARY KEY,
    at_ms       INTEGER NOT NULL,
    server      TEXT    NOT NULL,
    tool        TEXT    NOT NULL,
    -- The arguments as sent, with the values of writeOnly / password fields replaced.
    arguments   TEXT    NOT NULL,
    -- The CallToolResult as JSON, or NULL when the call failed before a result.
    result      TEXT,
    -- 'ok', 'tool-error' (isError) or 'failed' (no result: timeout, exited, refused).
    status      TEXT    NOT NULL CHECK (status IN ('ok', 'tool-error', 'failed')),
    -- Why a failed call failed, in words.
    error       TEXT,
    duration_ms INTEGER NOT NULL,
    -- Set when the person saved the call under a name.
    name        TEXT
);
CREATE INDEX calls_by_server_tool ON calls (server, tool, at_ms DESC);
CREATE INDEX calls_by_time ON calls (at_ms DESC);
