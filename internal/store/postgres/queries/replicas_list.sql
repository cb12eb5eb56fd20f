SELECT id, addr, workspaces, running, started_at, seen_at FROM replicas WHERE seen_at >= $1 ORDER BY id
