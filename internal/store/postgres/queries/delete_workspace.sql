DELETE FROM workspaces WHERE id = $1
