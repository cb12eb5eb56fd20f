INSERT INTO rewound_messages (session_id, rewound_at, id, position, role, content, model, created_at, kind, compaction)
	SELECT session_id, $1, id, position, role, content, model, created_at, kind, compaction FROM messages
	WHERE session_id = $2 AND position >= $3
