INSERT INTO session_events (session_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, seq) DO NOTHING
