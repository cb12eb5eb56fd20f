-- Rewind checkpoints (internal/checkpoint, docs/rewind.md). One row per
-- prompt; file contents live outside the database, content-addressed by
-- sha256 under the data folder, and are referenced here by hash.

CREATE TABLE checkpoints (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    number     INTEGER NOT NULL, -- 1 = the session's first prompt
    -- The message position the prompt took (messages.position): rewinding
    -- to this checkpoint keeps the messages before it.
    position   INTEGER NOT NULL,
    prompt     TEXT NOT NULL DEFAULT '', -- the prompt's first line
    created_at INTEGER NOT NULL,
    -- Runtime facts needed to resume from before the prompt (the claude-code
    -- runtime's conversation id and its last message uuid), as JSON.
    resume     TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, number)
) WITHOUT ROWID;

-- The prior state of each file a prompt's turn changed: the first time the
-- turn touched it, what it was before.
CREATE TABLE checkpoint_files (
    session_id TEXT NOT NULL,
    number     INTEGER NOT NULL,
    path       TEXT NOT NULL,              -- absolute
    state      TEXT NOT NULL,              -- saved | absent | too_large
    hash       TEXT NOT NULL DEFAULT '',   -- sha256 of the prior content (state saved)
    mode       INTEGER NOT NULL DEFAULT 0, -- prior permission bits
    PRIMARY KEY (session_id, number, path),
    FOREIGN KEY (session_id, number) REFERENCES checkpoints(session_id, number) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE INDEX checkpoint_files_hash ON checkpoint_files (hash);

-- What tandem last left each file it changed as ('' = absent): a rewind
-- refuses to overwrite a file that differs from it (changed outside tandem).
CREATE TABLE checkpoint_known (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    hash       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, path)
) WITHOUT ROWID;

-- Messages a conversation rewind removed (compaction boundaries among
-- them: kind and compaction as in messages), kept until the session is
-- deleted.
CREATE TABLE rewound_messages (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    rewound_at  INTEGER NOT NULL,
    id          TEXT NOT NULL,
    position    INTEGER NOT NULL,
    role        TEXT NOT NULL,
    content     TEXT NOT NULL,
    model       TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    kind        TEXT NOT NULL DEFAULT '',
    compaction  TEXT,
    PRIMARY KEY (session_id, rewound_at, position)
) WITHOUT ROWID;
