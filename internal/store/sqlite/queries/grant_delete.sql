DELETE FROM permission_grants WHERE id = ?
