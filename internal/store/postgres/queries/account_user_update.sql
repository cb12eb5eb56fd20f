UPDATE users SET admin = COALESCE($1, admin), disabled = COALESCE($2, disabled),
	email = COALESCE($3, email) WHERE id = $4
