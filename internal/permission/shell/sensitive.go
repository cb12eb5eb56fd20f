package shell

import (
	"path"
	"path/filepath"
	"strings"
)

// sensitiveDirs are folders whose every file is a credential.
var sensitiveDirs = setOf(".ssh", ".aws", ".gnupg", ".kube", ".azure", ".gcloud", ".password-store", ".vault-token")

// sensitiveNames are exact file names of credentials.
var sensitiveNames = setOf(".netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials",
	".docker/config.json", "shadow", "gshadow", ".htpasswd", ".my.cnf", ".boto", ".s3cfg")

// benignEnvSuffixes are example files that sit next to .env and hold no
// secrets.
var benignEnvSuffixes = setOf(".example", ".sample", ".template", ".dist", ".defaults")

// IsSensitivePath reports whether p names a credential-like file: anything
// under ~/.ssh, ~/.aws, ~/.gnupg, ~/.kube; .env files (not .env.example);
// *credentials*; id_rsa*, id_ed25519*...; .netrc, .pgpass, .npmrc;
// ~/.config/gh; /proc/*/environ; *.pem and *.key files. home expands a
// leading "~"; relative paths are judged by their components.
func IsSensitivePath(p, home string) bool {
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
		if part == ".config" && i+1 < len(parts) && (parts[i+1] == "gh" || parts[i+1] == "gcloud" || parts[i+1] == "hub") {
			return true
		}
		if part == ".docker" && i+1 < len(parts) && parts[i+1] == "config.json" {
			return true
		}
		if part == "proc" && i+2 < len(parts) && parts[i+2] == "environ" {
			return true
		}
	}
	return sensitiveBase(path.Base(p))
}

// sensitive is IsSensitivePath plus the analyzer's own secret files.
func (a *analyzer) sensitive(p string) bool {
	return IsSensitivePath(p, a.home) || IsSecretFile(p, a.secrets)
}

// IsSecretFile reports whether p is one of secrets, comparing cleaned
// absolute paths with symbolic links resolved where they exist, so another
// spelling of the same file is caught too.
func IsSecretFile(p string, secrets []string) bool {
	if len(secrets) == 0 || p == "" {
		return false
	}
	canon := func(s string) string {
		s = filepath.Clean(s)
		if real, err := filepath.EvalSymlinks(s); err == nil {
			return real
		}
		return s
	}
	p = canon(p)
	for _, s := range secrets {
		if s != "" && canon(s) == p {
			return true
		}
	}
	return false
}

func sensitiveBase(base string) bool {
	lower := strings.ToLower(base)
	switch {
	case sensitiveNames[lower]:
		return true
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
var sensitiveSamples = []string{".env", ".env.local", "id_rsa", "id_ed25519", "credentials",
	"credentials.json", ".netrc", ".pgpass", ".npmrc", "secrets.yaml", ".ssh", ".aws", "server.key", "cert.pem"}

// globMayMatchSensitive reports whether a glob's last component could
// match a credential file name.
func globMayMatchSensitive(glob string) bool {
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
