SELECT COUNT(*) FROM rewound_messages WHERE session_id = $1
