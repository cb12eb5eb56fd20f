INSERT INTO sessions
	(id, cwd, title, model, runtime, mode, parent_id, parent_tool_use_id, created_at, updated_at, last_seq)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
