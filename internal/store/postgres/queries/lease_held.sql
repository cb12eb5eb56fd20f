SELECT 1 FROM session_leases WHERE session_id = $1 AND holder = $2 FOR SHARE
