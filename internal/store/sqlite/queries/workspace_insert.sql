INSERT INTO workspaces (id, path, name, created_at)
	VALUES (?, ?, ?, ?) ON CONFLICT (path) DO NOTHING
