INSERT INTO users (id, name, email, subject, admin, disabled, created_at)
	VALUES ($1, $2, $3, NULLIF(CAST($4 AS TEXT), ''), $5, $6, $7) ON CONFLICT DO NOTHING
