DELETE FROM bridge_updates WHERE taken_at < ?
