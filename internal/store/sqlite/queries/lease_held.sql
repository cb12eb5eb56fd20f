SELECT 1 FROM session_leases WHERE session_id = ? AND holder = ?
