SELECT 1 FROM sessions WHERE id = ?
