DELETE FROM checkpoints WHERE session_id = ? AND number <=
	(SELECT MAX(number) FROM checkpoints WHERE session_id = ?) - ?
