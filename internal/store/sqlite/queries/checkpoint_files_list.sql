SELECT number, path, state, hash, mode
	FROM checkpoint_files WHERE session_id = ? ORDER BY number, path
