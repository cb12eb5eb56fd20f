SELECT id, at, actor, action, target, detail FROM audit_log
	WHERE actor = ? OR CAST(? AS TEXT) = '' ORDER BY at DESC, id DESC LIMIT ?
