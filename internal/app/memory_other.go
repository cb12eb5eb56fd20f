//go:build !unix

package app

const syscallNonblock = 0
