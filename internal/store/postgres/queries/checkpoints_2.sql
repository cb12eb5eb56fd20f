SELECT number, path, state, hash, mode
	FROM checkpoint_files WHERE session_id = $1 ORDER BY number, path
