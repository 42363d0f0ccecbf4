-- An index of Claude Code's own records, rebuilt from them whenever it is lost: names, times and
-- outcomes only, never a word of a conversation.

-- Every record file read, and how far.
CREATE TABLE files (
    path    TEXT    PRIMARY KEY,
    -- 'session' (a transcript) or 'connection' (an mcp-logs file).
    kind    TEXT    NOT NULL,
    inode   INTEGER NOT NULL,
    size    INTEGER NOT NULL,
    -- Bytes read: the end of the last whole line.
    offset  INTEGER NOT NULL,
    -- The hex of the last bytes read (at most 64): a file rewritten in place no longer has
    -- them there, and is read again from its start.
    tail    TEXT    NOT NULL DEFAULT '',
    -- Lines that could not be read (not JSON, too long, an unexpected shape).
    skipped INTEGER NOT NULL DEFAULT 0
);

-- Every call of an MCP tool Claude Code made.
CREATE TABLE calls (
    file        TEXT    NOT NULL,
    id          TEXT    NOT NULL,
    session     TEXT    NOT NULL,
    -- The folder Claude Code ran in.
    project     TEXT    NOT NULL,
    at_ms       INTEGER NOT NULL,
    -- mcp__<server>__<tool>, as the model named it.
    name        TEXT    NOT NULL,
    -- 'pending' until its result is read: 'ok', 'error', 'denied' or 'not-sent'.
    outcome     TEXT    NOT NULL,
    duration_ms INTEGER,
    -- Made inside a subagent.
    sidechain   INTEGER NOT NULL,
    PRIMARY KEY (file, id)
);
CREATE INDEX calls_by_time ON calls (at_ms);
CREATE INDEX calls_by_project ON calls (project, at_ms);

-- Server names as Claude Code wrote them beside their calls (attributionMcpServer): the way
-- back from a tool name's normalised part to the server.
CREATE TABLE names (
    prefix TEXT NOT NULL,
    server TEXT NOT NULL,
    PRIMARY KEY (prefix, server)
);

-- One server's connection in one Claude Code process, from its mcp-logs file.
CREATE TABLE connections (
    file    TEXT    PRIMARY KEY,
    project TEXT    NOT NULL,
    -- The server's name as the folder names it: every character but A-Z, a-z, 0-9 made '-'.
    slug    TEXT    NOT NULL,
    session TEXT,
    at_ms   INTEGER NOT NULL,
    -- 'connected', 'failed' or 'unknown' (the file ends before either).
    outcome TEXT    NOT NULL,
    -- Claude Code's code for the failure: CONNECT_TIMEOUT, ECONNREFUSED, CONNECTION_CLOSED…
    code    TEXT,
    -- Tools Claude Code skipped, by name, as a JSON array.
    skipped_tools TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX connections_by_slug ON connections (project, slug, at_ms);
