DELETE FROM session_leases WHERE session_id = $1 AND holder = $2
