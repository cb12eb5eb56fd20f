INSERT INTO checkpoint_files (session_id, number, path, state, hash, mode)
	VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING
