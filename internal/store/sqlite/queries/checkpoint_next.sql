-- The next checkpoint's number and the position its prompt will take.
SELECT
	(SELECT COALESCE(MAX(number), 0) + 1 FROM checkpoints WHERE session_id = ?),
	(SELECT COALESCE(MAX(position), 0) + 1 FROM messages WHERE session_id = ?)
