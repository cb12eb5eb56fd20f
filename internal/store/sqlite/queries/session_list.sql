SELECT /*session_columns*/ FROM sessions
	ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?
