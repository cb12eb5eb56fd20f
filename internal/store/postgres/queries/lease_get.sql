SELECT holder, pid, host, acquired_at, expires_at FROM session_leases WHERE session_id = $1
