-- The first change of a turn saw the state before the prompt: keep it.
INSERT OR IGNORE INTO checkpoint_files (session_id, number, path, state, hash, mode)
	VALUES (?, ?, ?, ?, ?, ?)
