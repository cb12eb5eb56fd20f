INSERT INTO web_sessions (hash, user_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
	ON CONFLICT (hash) DO NOTHING
