DELETE FROM messages WHERE session_id = $1 AND position >= $2
