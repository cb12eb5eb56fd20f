INSERT INTO sessions
	(id, cwd, title, model, runtime, mode, parent_id, parent_tool_use_id, created_at, updated_at, last_seq)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
