INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)
