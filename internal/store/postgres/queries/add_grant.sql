INSERT INTO permission_grants
	(id, scope, tool, pattern, action, created_at) VALUES ($1, $2, $3, $4, $5, $6)
	ON CONFLICT (scope, tool, pattern, action) DO NOTHING
