SELECT id, scope, tool, pattern, action, created_at FROM permission_grants WHERE scope = $1 ORDER BY created_at, id
