//go:build !unix

package sqlite

// noSpaceLeft cannot tell here; only SQLITE_FULL and ENOSPC count.
func noSpaceLeft(string) bool { return false }
