SELECT /*session_columns*/ FROM sessions WHERE cwd = ?
	ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?
