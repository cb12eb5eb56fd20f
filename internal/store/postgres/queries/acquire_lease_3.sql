UPDATE session_leases SET holder = $2, pid = $3, host = $4, acquired_at = $5, expires_at = $6
	WHERE session_id = $1
