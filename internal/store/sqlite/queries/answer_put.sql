UPDATE permission_answers SET answer = ? WHERE session_id = ? AND request_id = ? AND answer IS NULL
