SELECT data FROM checkpoint_blobs WHERE hash = $1
