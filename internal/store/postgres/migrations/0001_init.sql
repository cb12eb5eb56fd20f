-- PostgreSQL schema, the same tables and meanings as the SQLite backend's
-- migrations 0001-0008 (internal/store/migrations): times are BIGINT unix
-- nanoseconds (UTC), message content is the same JSON text. Ids and paths
-- compare byte-wise (COLLATE "C") whatever the database's locale, so
-- ordering and prefix matching are the SQLite backend's.

CREATE TABLE sessions (
    id                    TEXT COLLATE "C" PRIMARY KEY,
    cwd                   TEXT COLLATE "C" NOT NULL DEFAULT '',
    title                 TEXT NOT NULL DEFAULT '',
    model                 TEXT NOT NULL DEFAULT '',
    runtime               TEXT NOT NULL DEFAULT '',
    mode                  TEXT NOT NULL DEFAULT '',
    parent_id             TEXT COLLATE "C" REFERENCES sessions(id) ON DELETE CASCADE,
    parent_tool_use_id    TEXT,
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL,
    input_tokens          BIGINT NOT NULL DEFAULT 0,
    output_tokens         BIGINT NOT NULL DEFAULT 0,
    cache_read_tokens     BIGINT NOT NULL DEFAULT 0,
    cache_creation_tokens BIGINT NOT NULL DEFAULT 0,
    reasoning_tokens      BIGINT NOT NULL DEFAULT 0,
    -- Sum of the known message costs; cost_known false once an assistant
    -- message reported usage without a price, and the total is then unknown.
    cost_usd              DOUBLE PRECISION NOT NULL DEFAULT 0,
    cost_known            BOOLEAN NOT NULL DEFAULT TRUE,
    message_count         INTEGER NOT NULL DEFAULT 0,
    last_seq              BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX sessions_updated ON sessions (updated_at DESC, id DESC);
CREATE INDEX sessions_cwd_updated ON sessions (cwd, updated_at DESC, id DESC);
CREATE INDEX sessions_parent ON sessions (parent_id, created_at, id) WHERE parent_id IS NOT NULL;

CREATE TABLE session_meta (
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    PRIMARY KEY (session_id, key)
);

CREATE TABLE messages (
    id                    TEXT COLLATE "C" PRIMARY KEY,
    session_id            TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    position              BIGINT NOT NULL,
    role                  TEXT NOT NULL,
    content               TEXT NOT NULL, -- JSON array of message.Block (exact text: not jsonb)
    model                 TEXT NOT NULL DEFAULT '',
    -- Usage columns are all NULL when the message carried no usage.
    input_tokens          BIGINT,
    output_tokens         BIGINT,
    cache_read_tokens     BIGINT,
    cache_creation_tokens BIGINT,
    reasoning_tokens      BIGINT,
    cost_usd              DOUBLE PRECISION,
    created_at            BIGINT NOT NULL,
    kind                  TEXT NOT NULL DEFAULT '',
    compaction            TEXT, -- JSON of message.Compaction for kind 'compaction'
    provider_id           TEXT NOT NULL DEFAULT '',
    UNIQUE (session_id, position)
);

CREATE TABLE workspaces (
    id         TEXT COLLATE "C" PRIMARY KEY,
    path       TEXT COLLATE "C" NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE permission_grants (
    id         TEXT COLLATE "C" PRIMARY KEY,
    scope      TEXT COLLATE "C" NOT NULL, -- a project path, or "user"
    tool       TEXT NOT NULL,
    pattern    TEXT NOT NULL DEFAULT '',
    action     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (scope, tool, pattern, action)
);

-- One live runner per session across processes and machines (see the
-- SQLite migration 0004).
CREATE TABLE session_leases (
    session_id  TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    holder      TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    host        TEXT NOT NULL,
    acquired_at BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);

-- Rewind checkpoints (internal/checkpoint, docs/rewind.md).
CREATE TABLE checkpoints (
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,
    position   BIGINT NOT NULL,
    prompt     TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    resume     TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, number)
);

CREATE TABLE checkpoint_files (
    session_id TEXT COLLATE "C" NOT NULL,
    number     INTEGER NOT NULL,
    path       TEXT COLLATE "C" NOT NULL,
    state      TEXT NOT NULL,              -- saved | absent | too_large
    hash       TEXT NOT NULL DEFAULT '',   -- sha256 of the prior content (state saved)
    mode       BIGINT NOT NULL DEFAULT 0,  -- prior permission bits
    PRIMARY KEY (session_id, number, path),
    FOREIGN KEY (session_id, number) REFERENCES checkpoints(session_id, number) ON DELETE CASCADE
);

CREATE INDEX checkpoint_files_hash ON checkpoint_files (hash);

CREATE TABLE checkpoint_known (
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    hash       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, path)
);

CREATE TABLE rewound_messages (
    session_id  TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    rewound_at  BIGINT NOT NULL,
    id          TEXT NOT NULL,
    position    BIGINT NOT NULL,
    role        TEXT NOT NULL,
    content     TEXT NOT NULL,
    model       TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    kind        TEXT NOT NULL DEFAULT '',
    compaction  TEXT,
    PRIMARY KEY (session_id, rewound_at, position)
);
