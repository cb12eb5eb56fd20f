INSERT INTO checkpoint_blobs (hash, data, created_at) VALUES ($1, $2, $3)
	ON CONFLICT (hash) DO UPDATE SET created_at = GREATEST(checkpoint_blobs.created_at, excluded.created_at)
