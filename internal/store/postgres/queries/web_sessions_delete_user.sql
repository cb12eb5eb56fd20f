DELETE FROM web_sessions WHERE user_id = $1
