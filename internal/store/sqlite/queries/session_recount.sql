UPDATE sessions SET message_count =
	(SELECT COUNT(*) FROM messages WHERE session_id = ?), updated_at = ? WHERE id = ?
