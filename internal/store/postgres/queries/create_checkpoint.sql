SELECT
	(SELECT COALESCE(MAX(number), 0) + 1 FROM checkpoints WHERE session_id = $1),
	(SELECT COALESCE(MAX(position), 0) + 1 FROM messages WHERE session_id = $1)
