SELECT id, scope, tool, pattern, action, created_at FROM permission_grants
	WHERE scope = ? ORDER BY created_at, id
