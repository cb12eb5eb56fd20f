package claudecode

import (
	"fmt"
	"os"
	"strings"
)

// Check is one line of the doctor report.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Report is what `tandem doctor` prints for the claude-code runtime.
type Report struct {
	CLI    CLIInfo `json:"cli"`
	Checks []Check `json:"checks"`
}

// OK is true when every check passed.
func (r Report) OK() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// String renders the report one check per line.
func (r Report) String() string {
	var b strings.Builder
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "[%s] %s: %s\n", mark, c.Name, c.Detail)
	}
	return b.String()
}

// Doctor checks that the claude-code runtime can run: configuration, the
// CLI and its version, and the environment pitfalls the runtime knows of.
func Doctor(cfg Config) Report {
	var r Report
	add := func(name string, ok bool, detail string) {
		r.Checks = append(r.Checks, Check{Name: name, OK: ok, Detail: detail})
	}
	if err := cfg.Validate(); err != nil {
		add("config", false, err.Error())
	} else {
		add("config", true, "claude_code settings are valid")
	}
	info, err := Find(cfg)
	r.CLI = info
	if err != nil {
		add("cli", false, info.Problem)
	} else {
		add("cli", true, fmt.Sprintf("Claude Code %s at %s (minimum %s)", info.Version, info.Path, cfg.minVersion()))
	}
	if os.Getuid() == 0 {
		detail := "running as root: tandem drives Claude Code in its default permission mode, which works as root; bypass modes in claude_code.extra_args are refused unless claude_code.allow_root is set"
		if cfg.AllowRoot {
			detail = "running as root with claude_code.allow_root: IS_SANDBOX=1 is set for the CLI"
		}
		add("root", true, detail)
	}
	if os.Getenv("CLAUDECODE") != "" {
		add("nesting", true, "CLAUDECODE is set (tandem runs inside Claude Code); it is removed from the CLI's environment")
	}
	mcp := "the user's own MCP servers are kept out (--strict-mcp-config); set claude_code.use_user_mcp to let them in"
	if cfg.UseUserMCP {
		mcp = "the user's own MCP servers are loaded alongside tandem's"
	}
	add("mcp", true, mcp)
	add("tools", true, "built-in tools offered: "+strings.Join(cfg.tools(), ", "))
	return r
}
