id, cwd, title, model, runtime, mode, COALESCE(parent_id, ''), COALESCE(parent_tool_use_id, ''),
	created_at, updated_at, input_tokens, output_tokens, cache_read_tokens,
	cache_creation_tokens, reasoning_tokens, cost_usd, cost_known, message_count, last_seq,
	(SELECT json_group_object(key, value) FROM session_meta WHERE session_id = sessions.id)
