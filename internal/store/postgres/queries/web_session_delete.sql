DELETE FROM web_sessions WHERE hash = $1
