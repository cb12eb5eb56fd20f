INSERT INTO permission_grants
	(id, scope, tool, pattern, action, created_at) VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT (scope, tool, pattern, action) DO NOTHING
