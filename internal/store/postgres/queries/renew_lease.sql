UPDATE session_leases SET expires_at = $1 WHERE session_id = $2 AND holder = $3
