-- Lock the user's row: replicas admitting turns of one user at once count
-- one after the other.
SELECT id FROM users WHERE id = $1 FOR UPDATE
