UPDATE session_leases SET expires_at = ? WHERE session_id = ? AND holder = ?
