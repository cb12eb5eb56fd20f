DELETE FROM session_leases WHERE session_id = ? AND holder = ?
