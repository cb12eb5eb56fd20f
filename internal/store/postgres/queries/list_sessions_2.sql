SELECT /*session_columns*/ FROM sessions WHERE cwd = $3
	ORDER BY updated_at DESC, id DESC LIMIT $1 OFFSET $2
