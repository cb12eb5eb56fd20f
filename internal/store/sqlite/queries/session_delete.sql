-- Messages, meta, leases, checkpoints and sub-agent sessions go by ON DELETE CASCADE.
DELETE FROM sessions WHERE id = ?
