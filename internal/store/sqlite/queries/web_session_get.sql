SELECT hash, user_id, csrf, created_at, expires_at FROM web_sessions WHERE hash = ? AND expires_at > ?
