SELECT path, hash FROM checkpoint_known WHERE session_id = $1
