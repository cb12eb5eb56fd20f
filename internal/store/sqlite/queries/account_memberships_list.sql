SELECT workspace_id, user_id, role FROM workspace_members WHERE user_id = ? ORDER BY workspace_id
