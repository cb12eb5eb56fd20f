DELETE FROM bridge_bindings WHERE platform = $1 AND chat = $2
