package shell

import (
	"os"
	"strconv"
	"strings"

	"github.com/tandem-agent/tandem/internal/gitrepo"
	vshell "github.com/tandem-agent/tandem/internal/permission/shell"
)

// hardenGit returns env with gitrepo.GitHardening added when command is
// read-only as a whole (the only commands that run without the user having
// seen them in normal mode, and all that runs in explore mode). Commands
// the user approved keep git's full behaviour (their commit hooks run).
func hardenGit(env []string, command, dir string) []string {
	if !strings.Contains(command, "git") {
		return env
	}
	home, _ := os.UserHomeDir()
	an, err := vshell.Analyze(command, dir, home)
	if err != nil || !an.ReadOnly() {
		return env
	}
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v) // the user's own entries stay first
		}
	}
	out := make([]string, 0, len(env)+1+2*len(gitrepo.GitHardening))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_CONFIG_COUNT=") {
			out = append(out, kv)
		}
	}
	for i, kv := range gitrepo.GitHardening {
		out = append(out, "GIT_CONFIG_KEY_"+strconv.Itoa(n+i)+"="+kv[0], "GIT_CONFIG_VALUE_"+strconv.Itoa(n+i)+"="+kv[1])
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n+len(gitrepo.GitHardening)))
}
