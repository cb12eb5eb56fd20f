INSERT INTO checkpoint_known (session_id, path, hash) VALUES ($1, $2, $3)
	ON CONFLICT (session_id, path) DO UPDATE SET hash = excluded.hash
