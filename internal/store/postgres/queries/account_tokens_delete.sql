DELETE FROM user_tokens WHERE user_id = $1
