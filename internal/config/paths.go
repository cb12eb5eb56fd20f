// Package config loads tandem's settings: a user file and a project file
// (JSON, with a published JSON schema), environment variables and flags, in
// that order of precedence from weakest to strongest. Each capability
// package owns the type of its own section (permissions, mcpServers,
// claude_code); this package composes and validates them.
package config

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/places"
)

// Paths are where tandem keeps its files.
type Paths struct {
	ConfigDir string // user config: config.json, global AGENTS.md
	DataDir   string // database, spill files, tokens
	// File, when set, is the user config file in place of
	// ConfigDir/config.json (a program embedding tandem with its own).
	File string
}

// ResolvePaths applies, strongest first: an explicit home (--home flag),
// TANDEM_HOME (both folders under it), then XDG_CONFIG_HOME/tandem and
// XDG_DATA_HOME/tandem, then ~/.config/tandem and ~/.local/share/tandem.
func ResolvePaths(home string, getenv func(string) string) (Paths, error) {
	if home == "" {
		home = getenv("TANDEM_HOME")
	}
	if home != "" {
		abs, err := filepath.Abs(home)
		if err != nil {
			return Paths{}, fmt.Errorf("tandem home %q: %w", home, err)
		}
		return Paths{ConfigDir: abs, DataDir: abs}, nil
	}
	userHome := getenv("HOME")
	if userHome == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return Paths{}, fmt.Errorf("find home folder (set HOME or TANDEM_HOME): %w", err)
		}
		userHome = h
	}
	cfg := getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		cfg = filepath.Join(userHome, ".config")
	}
	data := getenv("XDG_DATA_HOME")
	if data == "" {
		data = filepath.Join(userHome, ".local", "share")
	}
	return Paths{ConfigDir: filepath.Join(cfg, "tandem"), DataDir: filepath.Join(data, "tandem")}, nil
}

// UserFile is the user's config file.
func (p Paths) UserFile() string {
	if p.File != "" {
		return p.File
	}
	return filepath.Join(p.ConfigDir, "config.json")
}

// DBFile is the session database.
func (p Paths) DBFile() string { return filepath.Join(p.DataDir, "tandem.db") }

// TokenFile holds the bearer token of `tandem serve`.
func (p Paths) TokenFile() string { return filepath.Join(p.DataDir, "server-token") }

// CatalogNoticeFile holds the day tandem last said its model catalog is
// old, so it says so once a day.
func (p Paths) CatalogNoticeFile() string { return filepath.Join(p.DataDir, "catalog-notice") }

// SecretFiles are the files of tandem's own that grant access to it: tools
// may read them only with the user's say-so, like credential files.
func (p Paths) SecretFiles() []string { return []string{p.TokenFile()} }

// ProjectFile is the project config file for a working folder.
func ProjectFile(cwd string) string { return places.Path(cwd, places.Project(), places.Config) }
