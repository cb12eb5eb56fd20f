package main

import "runtime/debug"

// buildVersion may be set with -ldflags "-X main.buildVersion=v1.2.3".
var buildVersion = ""

func version() string {
	if buildVersion != "" {
		return "tandem " + buildVersion
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return "tandem " + info.Main.Version
	}
	return "tandem dev"
}
