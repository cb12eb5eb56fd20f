UPDATE sessions SET
	updated_at = GREATEST(updated_at, $1),
	title = COALESCE($2, title),
	model = COALESCE($3, model),
	runtime = COALESCE($4, runtime),
	mode = COALESCE($5, mode),
	last_seq = GREATEST(last_seq, COALESCE($6, last_seq))
	WHERE id = $7
