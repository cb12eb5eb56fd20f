package shell

import "github.com/tandem-agent/tandem/internal/secretpaths"

// sensitive is secretpaths.Sensitive plus the analyzer's own secret files.
func (a *analyzer) sensitive(p string) bool {
	return secretpaths.Sensitive(p, a.home) || secretpaths.IsSecretFile(p, a.secrets)
}
