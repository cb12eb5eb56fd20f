INSERT INTO user_spend (user_id, day, usd) VALUES ($1, $2, $3)
	ON CONFLICT (user_id, day) DO UPDATE SET usd = user_spend.usd + excluded.usd
	RETURNING usd
