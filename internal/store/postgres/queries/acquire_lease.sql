INSERT INTO session_leases (session_id, holder, pid, host, acquired_at, expires_at)
	SELECT id, $2, $3, $4, $5, $6 FROM sessions WHERE id = $1
	ON CONFLICT (session_id) DO NOTHING
