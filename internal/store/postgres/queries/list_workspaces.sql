SELECT id, path, name, created_at FROM workspaces ORDER BY path
