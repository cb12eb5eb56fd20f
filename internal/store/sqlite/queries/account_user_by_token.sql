SELECT u.id, u.name, u.email, COALESCE(u.subject, ''), u.admin, u.disabled, u.created_at
	FROM user_tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?
