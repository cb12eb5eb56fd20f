SELECT answer FROM permission_answers WHERE session_id = ? AND request_id = ?
