SELECT platform, chat, session_id, cwd, model, mode, updated_at
	FROM bridge_bindings WHERE platform = ? AND chat = ?
