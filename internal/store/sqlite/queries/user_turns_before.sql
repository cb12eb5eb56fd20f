-- The turns admitted before a time, oldest first.
SELECT turn_id FROM user_turns WHERE admitted_at < ? ORDER BY admitted_at
