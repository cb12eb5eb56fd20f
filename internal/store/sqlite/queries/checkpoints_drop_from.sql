DELETE FROM checkpoints WHERE session_id = ? AND number >= ?
