-- The heartbeats of `tandem serve` replicas (issue 27): GET /api/replicas.
-- workspaces is a JSON array of folder paths.
CREATE TABLE replicas (
    id         TEXT COLLATE "C" PRIMARY KEY,
    addr       TEXT NOT NULL,
    workspaces TEXT NOT NULL,
    running    INTEGER NOT NULL,
    started_at BIGINT NOT NULL,
    seen_at    BIGINT NOT NULL
);
