DELETE FROM checkpoints WHERE session_id = $1 AND number <=
	(SELECT MAX(number) FROM checkpoints WHERE session_id = $1) - $2
