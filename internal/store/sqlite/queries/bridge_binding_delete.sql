DELETE FROM bridge_bindings WHERE platform = ? AND chat = ?
