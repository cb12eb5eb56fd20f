DELETE FROM replicas WHERE id = ?
