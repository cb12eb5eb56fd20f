SELECT number, position, prompt, created_at, resume
	FROM checkpoints WHERE session_id = ? ORDER BY number
