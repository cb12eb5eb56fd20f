INSERT INTO permission_answers (session_id, request_id) VALUES (?, ?) ON CONFLICT (session_id, request_id) DO NOTHING
