UPDATE sessions SET message_count =
	(SELECT COUNT(*) FROM messages WHERE session_id = $1), updated_at = $2 WHERE id = $1
