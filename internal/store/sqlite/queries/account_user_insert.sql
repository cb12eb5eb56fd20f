INSERT INTO users (id, name, email, subject, admin, disabled, created_at)
	VALUES (?, ?, ?, NULLIF(CAST(? AS TEXT), ''), ?, ?, ?) ON CONFLICT DO NOTHING
