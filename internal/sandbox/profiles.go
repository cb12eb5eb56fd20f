package sandbox

import (
	"path/filepath"
	"slices"
)

// Profile is what one toolchain needs beyond the workspace: the caches it
// writes and the registries it downloads from.
type Profile struct {
	// Write are folders, "~/" for the home folder; an environment
	// variable that moves a cache (GOCACHE) is given as "$NAME" and used
	// when set.
	Write []string
	Hosts []string
	// Programs are the toolchain's commands: when one is on PATH, the
	// Write folders that do not exist yet are made when the policy is
	// built (see makeCaches).
	Programs []string
}

// profiles are the known toolchains. A cache's contents can run later
// (npx, a Go module's code, a cargo build script), outside the sandbox
// too: docs/sandbox.md says so.
var profiles = map[string]Profile{
	"npm":    {Write: []string{"$npm_config_cache", "~/.npm"}, Hosts: []string{"registry.npmjs.org"}, Programs: []string{"npm", "npx"}},
	"pnpm":   {Write: []string{"~/.local/share/pnpm", "~/.cache/pnpm", "~/.pnpm-store"}, Hosts: []string{"registry.npmjs.org"}, Programs: []string{"pnpm"}},
	"yarn":   {Write: []string{"~/.cache/yarn", "~/.yarn/berry/cache"}, Hosts: []string{"registry.yarnpkg.com", "registry.npmjs.org"}, Programs: []string{"yarn"}},
	"pip":    {Write: []string{"$PIP_CACHE_DIR", "~/.cache/pip"}, Hosts: []string{"pypi.org", "files.pythonhosted.org"}, Programs: []string{"pip", "pip3"}},
	"uv":     {Write: []string{"$UV_CACHE_DIR", "~/.cache/uv"}, Hosts: []string{"pypi.org", "files.pythonhosted.org"}, Programs: []string{"uv"}},
	"go":     {Write: []string{"$GOCACHE", "~/.cache/go-build", "$GOMODCACHE", "~/go/pkg/mod"}, Hosts: []string{"proxy.golang.org", "sum.golang.org"}, Programs: []string{"go"}},
	"cargo":  {Write: []string{"~/.cargo/registry", "~/.cargo/git"}, Hosts: []string{"crates.io", "index.crates.io", "static.crates.io"}, Programs: []string{"cargo"}},
	"maven":  {Write: []string{"~/.m2/repository"}, Hosts: []string{"repo.maven.apache.org", "repo1.maven.org"}, Programs: []string{"mvn"}},
	"gradle": {Write: []string{"~/.gradle/caches", "~/.gradle/wrapper"}, Hosts: []string{"services.gradle.org", "plugins.gradle.org", "repo.maven.apache.org"}, Programs: []string{"gradle"}},
}

// ProfileNames lists the known profiles, sorted.
func ProfileNames() []string {
	var out []string
	for n := range profiles {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ProfileOf returns a known profile.
func ProfileOf(name string) (Profile, bool) {
	p, ok := profiles[name]
	return p, ok
}

// expand resolves "~/" and "$NAME" entries; unset variables give nothing.
func expand(p, home string, getenv func(string) string) string {
	switch {
	case len(p) > 0 && p[0] == '$':
		v := getenv(p[1:])
		if !filepath.IsAbs(v) {
			return ""
		}
		return filepath.Clean(v)
	case p == "~":
		return home
	case len(p) > 1 && p[:2] == "~/":
		if home == "" {
			return ""
		}
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return ""
}
