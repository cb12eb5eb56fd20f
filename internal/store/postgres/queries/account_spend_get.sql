SELECT usd FROM user_spend WHERE user_id = $1 AND day = $2
