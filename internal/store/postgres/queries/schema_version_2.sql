SELECT max(version) FROM schema_migrations
