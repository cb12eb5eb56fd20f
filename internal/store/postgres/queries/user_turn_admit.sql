-- Admit a turn while the user has fewer than $4 (run after the user's row
-- is locked, in the same transaction).
INSERT INTO user_turns (turn_id, user_id, admitted_at)
SELECT $2, $1, $3
WHERE (SELECT count(*) FROM user_turns WHERE user_id = $1) < $4
ON CONFLICT (turn_id) DO NOTHING
