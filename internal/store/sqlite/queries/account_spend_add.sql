INSERT INTO user_spend (user_id, day, usd) VALUES (?, ?, ?)
	ON CONFLICT (user_id, day) DO UPDATE SET usd = user_spend.usd + excluded.usd
	RETURNING usd
