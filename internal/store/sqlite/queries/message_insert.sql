-- Stores one message after the session's last.
INSERT INTO messages
	(id, session_id, position, role, content, model,
	 input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens,
	 cost_usd, created_at, kind, compaction, provider_id)
	VALUES (?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM messages WHERE session_id = ?),
	 ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
