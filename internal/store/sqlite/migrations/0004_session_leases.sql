-- One live runner per session across processes: the process running a turn
-- holds the session's lease and renews it while the turn runs. A holder that
-- died stops renewing, so its lease expires and the next runner takes over.
CREATE TABLE session_leases (
    session_id  TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    holder      TEXT NOT NULL, -- a random id per process and session manager
    pid         INTEGER NOT NULL,
    host        TEXT NOT NULL,
    acquired_at INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
) WITHOUT ROWID;
