DELETE FROM replicas WHERE id = $1
