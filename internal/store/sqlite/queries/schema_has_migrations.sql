SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'
