-- Permission questions asked by a turn on one `tandem serve` replica and
-- answered on any (issue 27): the first answer wins, once.
CREATE TABLE permission_answers (
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    request_id TEXT COLLATE "C" NOT NULL,
    answer     TEXT,
    PRIMARY KEY (session_id, request_id)
);
