//go:build !unix

package regular

import (
	"io"
	"math"
)

func readFileMax(path string, _ []byte, limit int64) ([]byte, error) {
	if limit == math.MaxInt64 {
		f, _, err := Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	data, more, err := ReadCapped(path, limit)
	if err == nil && more {
		return nil, ErrTooLarge
	}
	return data, err
}
