SELECT hash, user_id, csrf, created_at, expires_at FROM web_sessions WHERE hash = $1 AND expires_at > $2
