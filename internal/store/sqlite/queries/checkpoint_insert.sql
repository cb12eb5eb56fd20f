INSERT INTO checkpoints (session_id, number, position, prompt, created_at, resume)
	VALUES (?, ?, ?, ?, ?, ?)
