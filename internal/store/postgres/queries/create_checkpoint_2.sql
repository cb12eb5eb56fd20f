INSERT INTO checkpoints (session_id, number, position, prompt, created_at, resume)
	VALUES ($1, $2, $3, $4, $5, $6)
