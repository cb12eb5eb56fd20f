DELETE FROM messages WHERE session_id = ? AND position >= ?
