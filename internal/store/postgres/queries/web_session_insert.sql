INSERT INTO web_sessions (hash, user_id, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
	ON CONFLICT (hash) DO NOTHING
