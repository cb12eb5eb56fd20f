-- A NULL argument keeps the column. Event numbers only go up: a late or
-- stale writer must not rewind them.
UPDATE sessions SET
	updated_at = max(updated_at, ?),
	title = COALESCE(?, title),
	model = COALESCE(?, model),
	runtime = COALESCE(?, runtime),
	mode = COALESCE(?, mode),
	last_seq = max(last_seq, COALESCE(?, last_seq))
	WHERE id = ?
