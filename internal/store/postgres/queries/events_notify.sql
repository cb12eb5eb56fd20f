SELECT pg_notify('tandem_events', $1)
