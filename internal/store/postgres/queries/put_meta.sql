INSERT INTO session_meta (session_id, key, value) VALUES ($1, $2, $3)
	ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value
