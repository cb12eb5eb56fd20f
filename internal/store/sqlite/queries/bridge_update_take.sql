INSERT INTO bridge_updates (platform, update_id, taken_at) VALUES (?, ?, ?)
	ON CONFLICT (platform, update_id) DO NOTHING
