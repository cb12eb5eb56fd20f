SELECT id, scope, tool, pattern, action, created_at FROM permission_grants ORDER BY created_at, id
