SELECT /*session_columns*/ FROM sessions
	ORDER BY updated_at DESC, id DESC LIMIT $1 OFFSET $2
