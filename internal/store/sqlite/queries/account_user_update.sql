UPDATE users SET admin = COALESCE(?, admin), disabled = COALESCE(?, disabled),
	email = COALESCE(?, email) WHERE id = ?
