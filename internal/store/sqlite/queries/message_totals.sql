-- Adds one message's usage and cost to its session's totals.
UPDATE sessions SET
	input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
	cache_read_tokens = cache_read_tokens + ?, cache_creation_tokens = cache_creation_tokens + ?,
	reasoning_tokens = reasoning_tokens + ?,
	cost_usd = cost_usd + COALESCE(?, 0),
	cost_known = cost_known AND NOT ?,
	message_count = message_count + 1,
	updated_at = max(updated_at, ?),
	title = CASE WHEN title = '' THEN ? ELSE title END,
	last_seq = max(last_seq, ?)
	WHERE id = ?
