SELECT id, name, email, COALESCE(subject, ''), admin, disabled, created_at FROM users ORDER BY name
