SELECT workspace_id, user_id, role FROM workspace_members WHERE workspace_id = ? ORDER BY user_id
