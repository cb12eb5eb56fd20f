INSERT INTO session_events (session_id, seq, type, data, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (session_id, seq) DO NOTHING
