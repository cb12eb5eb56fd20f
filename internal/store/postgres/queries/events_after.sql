SELECT seq, type, data FROM session_events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3
