SELECT /*session_columns*/ FROM sessions WHERE id = $1
