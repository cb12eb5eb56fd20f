-- GLOB, unlike LIKE, is case-sensitive and so can use the primary key index.
SELECT id FROM sessions WHERE id GLOB ? ORDER BY id LIMIT ?
