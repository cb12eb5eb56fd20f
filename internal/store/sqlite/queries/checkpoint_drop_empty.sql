-- Only when its turn left no trace: no file recorded, no message stored
-- from its position on.
DELETE FROM checkpoints WHERE session_id = ? AND number = ?
	AND NOT EXISTS (SELECT 1 FROM checkpoint_files WHERE session_id = ? AND number = ?)
	AND NOT EXISTS (SELECT 1 FROM messages WHERE session_id = ? AND position >= checkpoints.position)
