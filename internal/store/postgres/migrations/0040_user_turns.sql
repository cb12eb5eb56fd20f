-- Each user's unfinished turns on any `tandem serve` replica (issue 27):
-- serve.user_max_concurrent_turns counts these rows, so the limit holds
-- across replicas. A row is added when a prompt is admitted and removed
-- when its turn ends (or, if it never ran, by the replicas' sweep).
CREATE TABLE user_turns (
    turn_id     TEXT COLLATE "C" PRIMARY KEY,
    user_id     TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    admitted_at BIGINT NOT NULL
);
CREATE INDEX user_turns_user ON user_turns(user_id);
