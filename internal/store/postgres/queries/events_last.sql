SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_id = $1
