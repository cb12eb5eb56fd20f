package app

import (
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/trust"
)

// TrustStatus reports whether dir is trusted and which of its project
// settings need trust (whether or not it is trusted), for `tandem trust`
// and the HTTP API.
func (a *App) TrustStatus(dir string) (trust.Status, error) {
	cwd, err := session.ResolveDir(dir)
	if err != nil {
		return trust.Status{}, err
	}
	st := trust.Status{Dir: cwd, NeedsTrust: []trust.Finding{}}
	f, err := a.openFolder(cwd)
	if err != nil {
		return st, err
	}
	x, err := a.loadExtensions(f.cfg, cwd, f.trusted, nil) // trust is about the folder's own files
	if err != nil {
		return st, err
	}
	if n := append(f.needs, x.needs...); len(n) > 0 {
		st.NeedsTrust = n
	}
	st.TrustedBy, st.Trusted, err = a.Trust.Trusted(cwd)
	return st, err
}

// TrustFolder trusts dir and its subfolders; it returns the real path
// stored. / and the home folder are refused (*trust.BroadError).
func (a *App) TrustFolder(dir string) (string, error) { return a.Trust.Add(dir) }

// TrustBroadFolder is TrustFolder that also trusts / or the home folder
// (`tandem trust --broad`).
func (a *App) TrustBroadFolder(dir string) (string, error) { return a.Trust.AddBroad(dir) }

// RevokeFolder stops trusting dir; stillBy is the trusted folder that
// still covers it ("" if none).
func (a *App) RevokeFolder(dir string) (real, stillBy string, err error) {
	return a.Trust.RemoveAndCheck(dir)
}

// TrustedFolders lists the trusted folders.
func (a *App) TrustedFolders() ([]string, error) { return a.Trust.List() }

// knownProvider reports providers that exist without a project file: the
// catalog's presets, the user's own entries and those given in code.
func (a *App) knownProvider(name string) bool {
	if _, ok := a.opts.Providers[name]; ok {
		return true
	}
	if _, ok := a.User.Providers[name]; ok {
		return true
	}
	_, ok := a.Catalog.Preset(name)
	return ok
}

// TrustsEveryFolder says this process treats every folder as trusted
// (--trust-project, TANDEM_TRUST_PROJECT=1).
func (a *App) TrustsEveryFolder() bool { return a.opts.TrustProject }
