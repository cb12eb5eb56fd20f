SELECT id, at, actor, action, target, detail FROM audit_log
	WHERE actor = $1 OR CAST($2 AS TEXT) = '' ORDER BY at DESC, id DESC LIMIT $3
