DELETE FROM checkpoint_blobs b WHERE b.created_at < $1
	AND NOT EXISTS (SELECT 1 FROM checkpoint_files f WHERE f.hash = b.hash)
