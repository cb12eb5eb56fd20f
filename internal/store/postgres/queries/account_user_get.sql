SELECT id, name, email, COALESCE(subject, ''), admin, disabled, created_at FROM users WHERE id = $1 OR name = $2
