SELECT platform, chat, session_id, cwd, model, mode, updated_at
	FROM bridge_bindings WHERE platform = $1 AND chat = $2
