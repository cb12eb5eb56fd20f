INSERT INTO audit_log (id, at, actor, action, target, detail) VALUES ($1, $2, $3, $4, $5, $6)
