SELECT id, scope, tool, pattern, action, created_at FROM permission_grants
	WHERE scope = ? AND tool = ? AND pattern = ? AND action = ?
