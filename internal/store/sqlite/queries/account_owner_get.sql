SELECT user_id FROM session_owners WHERE session_id = ?
