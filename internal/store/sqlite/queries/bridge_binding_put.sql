INSERT INTO bridge_bindings (platform, chat, session_id, cwd, model, mode, updated_at)
	VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (platform, chat) DO UPDATE SET session_id = excluded.session_id,
		cwd = excluded.cwd, model = excluded.model, mode = excluded.mode, updated_at = excluded.updated_at
