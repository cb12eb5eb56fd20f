// Package secretpaths is the one list of credential-like paths: folders
// such as ~/.ssh and ~/.aws, files such as .env, id_rsa and .netrc, a
// process's environment under /proc. The shell validator, the file tools'
// checks, the project-file reader and the OS sandbox all read it, so a
// path is a secret to every guard or to none. A leaf: it links no parser.
package secretpaths

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// sensitiveDirs are folders whose every file is a credential.
var sensitiveDirs = setOf(".ssh", ".aws", ".gnupg", ".kube", ".azure", ".gcloud", ".password-store", ".vault-token")

// sensitiveNames are exact file names of credentials.
var sensitiveNames = setOf(".netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials",
	".docker/config.json", "shadow", "gshadow", ".htpasswd", ".my.cnf", ".boto", ".s3cfg")

// sensitiveConfigDirs are folders under ~/.config that hold credentials.
var sensitiveConfigDirs = setOf("gh", "gcloud", "hub")

// procSecret are the files under /proc that show a process's environment
// (where API keys live), its command line (where tokens are passed) or its
// memory (both).
var procSecret = setOf("environ", "cmdline", "mem", "auxv")

// benignEnvSuffixes are example files that sit next to .env and hold no
// secrets.
var benignEnvSuffixes = setOf(".example", ".sample", ".template", ".dist", ".defaults")

// Sensitive reports whether p names a credential-like file: anything
// under ~/.ssh, ~/.aws, ~/.gnupg, ~/.kube; .env files (not .env.example);
// *credentials*; id_rsa*, id_ed25519*...; .netrc, .pgpass, .npmrc;
// ~/.config/gh; a process's environment, command line or memory under
// /proc (environ, cmdline, mem, auxv, at any depth: task/TID too); *.pem and *.key files. home expands a
// leading "~"; relative paths are judged by their components.
func Sensitive(p, home string) bool {
	if p == "" {
		return false
	}
	if strings.HasPrefix(p, "~") && home != "" {
		p = filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	p = filepath.ToSlash(p)
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if sensitiveDirs[part] {
			return true
		}
		if part == ".config" && i+1 < len(parts) && sensitiveConfigDirs[parts[i+1]] {
			return true
		}
		if part == ".docker" && i+1 < len(parts) && parts[i+1] == "config.json" {
			return true
		}
		if part == "proc" && i <= 1 && i+1 < len(parts) && procSecret[parts[len(parts)-1]] {
			return true // /proc/PID/environ, /proc/self/task/TID/cmdline, ...
		}
	}
	return sensitiveBase(path.Base(p))
}

// IsSecretFile reports whether p is one of secrets, which Canonical
// has resolved: p is cleaned and its symbolic links resolved where they
// exist, so another spelling of the same file is caught too.
func IsSecretFile(p string, secrets []string) bool {
	if len(secrets) == 0 || p == "" {
		return false
	}
	return slices.Contains(secrets, canonical(p))
}

// Canonical returns paths cleaned and with symbolic links resolved
// where they exist, once, for IsSecretFile; empty paths are dropped.
func Canonical(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p != "" {
			out = append(out, canonical(p))
		}
	}
	return out
}

func canonical(p string) string {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

func sensitiveBase(base string) bool {
	lower := strings.ToLower(base)
	switch {
	case sensitiveNames[lower]:
		return true
	case lower == "environ" || lower == "cmdline":
		return true // a process's environment or command line, reached from /proc/PID by `cd`
	case lower == ".env" || lower == ".envrc":
		return true
	case strings.HasPrefix(lower, ".env."):
		return !benignEnvSuffixes[lower[len(".env"):]]
	case strings.HasSuffix(lower, ".env"):
		return true
	case strings.Contains(lower, "credential"):
		return true
	case (strings.HasPrefix(lower, "secret") || strings.HasPrefix(lower, ".secret")) && configExt(lower):
		return true
	case strings.HasPrefix(lower, "id_rsa") || strings.HasPrefix(lower, "id_dsa") ||
		strings.HasPrefix(lower, "id_ecdsa") || strings.HasPrefix(lower, "id_ed25519"):
		return true
	case strings.HasSuffix(lower, ".pem") || strings.HasSuffix(lower, ".key") ||
		strings.HasSuffix(lower, ".p12") || strings.HasSuffix(lower, ".pfx") || strings.HasSuffix(lower, ".keystore"):
		return true
	}
	return false
}

// sensitiveSamples are names a glob is tried against: `cat .e*` may read
// .env even though no argument names it.
var sensitiveSamples = []string{"environ", "cmdline", ".env", ".env.local", "id_rsa", "id_ed25519", "credentials",
	"credentials.json", ".netrc", ".pgpass", ".npmrc", "secrets.yaml", ".ssh", ".aws", "server.key", "cert.pem"}

// GlobMayMatch reports whether a glob's last component could
// match a credential file name.
func GlobMayMatch(glob string) bool {
	if !strings.ContainsAny(glob, "*?[") {
		return false
	}
	base := path.Base(filepath.ToSlash(glob))
	for _, s := range sensitiveSamples {
		if strings.HasPrefix(s, ".") && !strings.HasPrefix(base, ".") {
			continue // bash globs skip dot files unless the pattern starts with a dot
		}
		if ok, _ := path.Match(base, s); ok {
			return true
		}
	}
	return false
}

func configExt(name string) bool {
	for _, ext := range []string{"", ".json", ".yaml", ".yml", ".toml", ".ini", ".env", ".txt", ".conf", ".cfg"} {
		if path.Ext(name) == ext {
			return true
		}
	}
	return false
}

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
