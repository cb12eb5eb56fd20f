-- Forget an admitted turn (it ended).
DELETE FROM user_turns WHERE turn_id = ?
