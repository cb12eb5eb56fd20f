INSERT INTO session_meta (session_id, key, value) VALUES (?, ?, ?)
	ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value
