SELECT count(*) FROM schema_migrations WHERE version = ?
