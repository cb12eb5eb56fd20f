UPDATE permission_answers SET answer = $3 WHERE session_id = $1 AND request_id = $2 AND answer IS NULL
