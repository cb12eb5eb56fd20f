SELECT /*session_columns*/ FROM sessions
	WHERE parent_id = $1 ORDER BY created_at, id
