SELECT /*session_columns*/ FROM sessions
	WHERE cwd = $1 AND parent_id IS NULL ORDER BY updated_at DESC, id DESC LIMIT 1
