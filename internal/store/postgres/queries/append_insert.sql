INSERT INTO messages
	(id, session_id, position, role, content, model,
	 input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens,
	 cost_usd, created_at, kind, compaction, provider_id)
	VALUES ($1, $2, (SELECT COALESCE(MAX(position), 0) + 1 FROM messages WHERE session_id = $2),
	 $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
