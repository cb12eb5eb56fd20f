SELECT workspace_id, user_id, role FROM workspace_members WHERE user_id = $1 ORDER BY workspace_id
