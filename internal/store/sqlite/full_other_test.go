//go:build !linux

package sqlite

import "github.com/tandem-agent/tandem/internal/store/storetest"

// conformanceOptions: only Linux mounts the small disk the suite fills.
func conformanceOptions() storetest.Options { return storetest.Options{} }
