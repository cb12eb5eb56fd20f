-- Times are INTEGER unix nanoseconds (UTC): exact round trips and cheap ordering.

CREATE TABLE sessions (
    id                    TEXT PRIMARY KEY,
    cwd                   TEXT NOT NULL DEFAULT '',
    title                 TEXT NOT NULL DEFAULT '',
    model                 TEXT NOT NULL DEFAULT '',
    runtime               TEXT NOT NULL DEFAULT '',
    mode                  TEXT NOT NULL DEFAULT '',
    parent_id             TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    input_tokens          INTEGER NOT NULL DEFAULT 0,
    output_tokens         INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens     INTEGER NOT NULL DEFAULT 0,
    cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens      INTEGER NOT NULL DEFAULT 0,
    -- Sum of the known message costs; cost_known = 0 once an assistant
    -- message reported usage without a price, and the total is then unknown.
    cost_usd              REAL NOT NULL DEFAULT 0,
    cost_known            INTEGER NOT NULL DEFAULT 1,
    message_count         INTEGER NOT NULL DEFAULT 0,
    last_seq              INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX sessions_updated ON sessions (updated_at DESC, id DESC);
CREATE INDEX sessions_cwd_updated ON sessions (cwd, updated_at DESC, id DESC);
CREATE INDEX sessions_parent ON sessions (parent_id) WHERE parent_id IS NOT NULL;

-- Runtime-specific key/values (Claude Code session id, todo list). A row per
-- key rather than one JSON column so SetMeta never read-modify-writes.
CREATE TABLE session_meta (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    PRIMARY KEY (session_id, key)
) WITHOUT ROWID;

CREATE TABLE messages (
    id                    TEXT PRIMARY KEY,
    session_id            TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    position              INTEGER NOT NULL,
    role                  TEXT NOT NULL,
    content               TEXT NOT NULL, -- JSON array of message.Block
    model                 TEXT NOT NULL DEFAULT '',
    -- Usage columns are all NULL when the message carried no usage.
    input_tokens          INTEGER,
    output_tokens         INTEGER,
    cache_read_tokens     INTEGER,
    cache_creation_tokens INTEGER,
    reasoning_tokens      INTEGER,
    cost_usd              REAL,
    created_at            INTEGER NOT NULL,
    UNIQUE (session_id, position)
);

CREATE TABLE workspaces (
    id         TEXT PRIMARY KEY,
    path       TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE permission_grants (
    id         TEXT PRIMARY KEY,
    scope      TEXT NOT NULL, -- a project path, or "user"
    tool       TEXT NOT NULL,
    pattern    TEXT NOT NULL DEFAULT '',
    action     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (scope, tool, pattern, action)
);
