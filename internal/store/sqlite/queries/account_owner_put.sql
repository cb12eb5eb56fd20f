INSERT INTO session_owners (session_id, user_id) VALUES (?, ?)
	ON CONFLICT (session_id) DO UPDATE SET user_id = excluded.user_id
