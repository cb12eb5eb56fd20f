SELECT
	(SELECT value FROM session_meta WHERE session_id = sessions.id AND key = $1)
	FROM sessions WHERE id = $2
