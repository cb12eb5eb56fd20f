INSERT INTO bridge_updates (platform, update_id, taken_at) VALUES ($1, $2, $3)
	ON CONFLICT (platform, update_id) DO NOTHING
