INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3)
	ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role
