DELETE FROM workspaces WHERE id = ?
