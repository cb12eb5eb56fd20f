DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2
