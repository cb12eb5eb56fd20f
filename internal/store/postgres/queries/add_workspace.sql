INSERT INTO workspaces (id, path, name, created_at)
	VALUES ($1, $2, $3, $4) ON CONFLICT (path) DO NOTHING
