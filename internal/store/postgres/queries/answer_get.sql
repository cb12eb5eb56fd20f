SELECT answer FROM permission_answers WHERE session_id = $1 AND request_id = $2
