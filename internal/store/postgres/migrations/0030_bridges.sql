-- The chat bridges' records (internal/bridge): which chat (or thread) of
-- a platform is bound to which session, and the platform update ids
-- already taken, so an update delivered again after a reconnect is not
-- run twice. Not tied to sessions by a foreign key: a binding whose
-- session was deleted is answered "that session is gone" by the bridge.
CREATE TABLE bridge_bindings (
    platform   TEXT COLLATE "C" NOT NULL,
    chat       TEXT COLLATE "C" NOT NULL,
    session_id TEXT COLLATE "C" NOT NULL,
    cwd        TEXT COLLATE "C" NOT NULL,
    model      TEXT COLLATE "C" NOT NULL DEFAULT '',
    mode       TEXT COLLATE "C" NOT NULL DEFAULT '',
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (platform, chat)
);
CREATE TABLE bridge_updates (
    platform  TEXT COLLATE "C" NOT NULL,
    update_id TEXT COLLATE "C" NOT NULL,
    taken_at  BIGINT NOT NULL,
    PRIMARY KEY (platform, update_id)
);
CREATE INDEX bridge_updates_taken ON bridge_updates (taken_at);
