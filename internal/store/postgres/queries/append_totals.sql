UPDATE sessions SET
	input_tokens = input_tokens + $1, output_tokens = output_tokens + $2,
	cache_read_tokens = cache_read_tokens + $3, cache_creation_tokens = cache_creation_tokens + $4,
	reasoning_tokens = reasoning_tokens + $5,
	cost_usd = cost_usd + COALESCE($6::double precision, 0),
	cost_known = cost_known AND NOT $7::boolean,
	message_count = message_count + 1,
	updated_at = GREATEST(updated_at, $8),
	title = CASE WHEN title = '' THEN $9 ELSE title END,
	last_seq = GREATEST(last_seq, $10)
	WHERE id = $11
