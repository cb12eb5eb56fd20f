//go:build !linux

package main

import "io"

// flushInput is a no-op here: tandem discards type-ahead only on Linux;
// elsewhere lines read before a question are still dropped.
func flushInput(io.Reader) {}
