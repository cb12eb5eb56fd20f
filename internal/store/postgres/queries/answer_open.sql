INSERT INTO permission_answers (session_id, request_id) VALUES ($1, $2) ON CONFLICT (session_id, request_id) DO NOTHING
