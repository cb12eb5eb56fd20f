//go:build !unix

package regular

func readFile(path string, _ []byte) ([]byte, error) { return readFileOS(path) }
