SELECT id, scope, tool, pattern, action, created_at FROM permission_grants
	WHERE scope = $1 AND tool = $2 AND pattern = $3 AND action = $4
