SELECT seq, type, data FROM session_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?
