INSERT INTO checkpoint_known (session_id, path, hash) VALUES (?, ?, ?)
	ON CONFLICT (session_id, path) DO UPDATE SET hash = excluded.hash
