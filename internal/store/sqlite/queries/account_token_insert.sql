INSERT INTO user_tokens (hash, user_id, created_at) VALUES (?, ?, ?)
