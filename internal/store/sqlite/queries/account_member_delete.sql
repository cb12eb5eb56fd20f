DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?
