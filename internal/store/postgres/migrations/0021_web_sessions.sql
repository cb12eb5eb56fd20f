-- Browser sign-ins (OpenID Connect) of `tandem serve`, kept here so they
-- survive a restart and every replica sees them: the cookie's value is
-- never stored, only its SHA-256, so a stolen database signs no one in.
CREATE TABLE web_sessions (
    hash       TEXT COLLATE "C" PRIMARY KEY,
    user_id    TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    csrf       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX web_sessions_user ON web_sessions(user_id);
CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);
