SELECT /*session_columns*/ FROM sessions
	WHERE parent_id = ? ORDER BY created_at, id
