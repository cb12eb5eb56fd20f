package main

import (
	"runtime/debug"
	"sync"
)

// buildVersion may be set with -ldflags "-X main.buildVersion=v1.2.3".
var buildVersion = ""

// version is computed once: reading the build info parses the whole module
// list embedded in the binary, and every command asks for it while the
// command tree is built, before even --version can print.
var version = sync.OnceValue(func() string {
	if buildVersion != "" {
		return "tandem " + buildVersion
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return "tandem " + info.Main.Version
	}
	return "tandem dev"
})
