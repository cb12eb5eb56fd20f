-- Every session event by (session, seq): the log every replica's SSE
-- clients resume from (issue 27). Appends NOTIFY tandem_events with
-- "<session>:<seq>" so other replicas wake; the rows are the truth.
CREATE TABLE session_events (
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    type       TEXT NOT NULL,
    data       BYTEA NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
