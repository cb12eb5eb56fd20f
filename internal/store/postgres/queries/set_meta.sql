INSERT INTO session_meta (session_id, key, value)
	SELECT id, $2, $3 FROM sessions WHERE id = $1
	ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value
