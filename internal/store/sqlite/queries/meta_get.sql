-- No row: no such session; a NULL value: the key was never set.
SELECT (SELECT value FROM session_meta WHERE session_id = sessions.id AND key = ?)
	FROM sessions WHERE id = ?
