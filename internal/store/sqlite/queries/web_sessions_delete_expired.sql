DELETE FROM web_sessions WHERE expires_at <= ?
