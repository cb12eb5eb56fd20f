INSERT INTO session_owners (session_id, user_id) VALUES ($1, $2)
	ON CONFLICT (session_id) DO UPDATE SET user_id = excluded.user_id
