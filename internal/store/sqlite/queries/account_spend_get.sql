SELECT usd FROM user_spend WHERE user_id = ? AND day = ?
