SELECT number, position, prompt, created_at, resume
	FROM checkpoints WHERE session_id = $1 ORDER BY number
