SELECT h FROM unnest($1::text[]) AS h
	WHERE NOT EXISTS (SELECT 1 FROM checkpoint_blobs WHERE hash = h)
