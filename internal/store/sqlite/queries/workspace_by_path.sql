SELECT id, path, name, created_at FROM workspaces WHERE path = ?
