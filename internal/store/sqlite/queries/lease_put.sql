INSERT INTO session_leases (session_id, holder, pid, host, acquired_at, expires_at)
	VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid,
		host = excluded.host, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
