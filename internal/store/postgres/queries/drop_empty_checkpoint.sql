DELETE FROM checkpoints WHERE session_id = $1 AND number = $2
	AND NOT EXISTS (SELECT 1 FROM checkpoint_files WHERE session_id = $1 AND number = $2)
	AND NOT EXISTS (SELECT 1 FROM messages WHERE session_id = $1 AND position >= checkpoints.position)
