DELETE FROM checkpoints WHERE session_id = $1 AND number >= $2
