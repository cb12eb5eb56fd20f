SELECT id, role, content, model,
	input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens,
	cost_usd, created_at, kind, compaction, provider_id
	FROM messages WHERE session_id = ? ORDER BY position
