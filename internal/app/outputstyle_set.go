package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/projectfile"
	"github.com/tandem-agent/tandem/internal/prompt"
)

// OutputStyles implements session.OutputStyles: the styles the session may
// choose and the one in force ("" when none: the default).
func (eq *Equipment) OutputStyles() ([]prompt.Style, string) {
	s := eq.settings
	cat := eq.w.app.outputStyles(s.Cwd, s.Trusted, s.plugins)
	out := make([]prompt.Style, 0, len(cat.Styles))
	for _, st := range cat.Styles {
		out = append(out, *st)
	}
	current := ""
	if s.style != nil {
		current = s.style.Name
	}
	return out, current
}

// SetOutputStyle implements session.OutputStyles: it saves name as the
// project's local "outputStyle" (.claude/settings.local.json, as Claude
// Code's /config does), where the next session in the folder, or this one
// after /clear, reads it: a style is part of the system prompt, which a
// session keeps from its start (so the provider's prompt cache holds).
func (eq *Equipment) SetOutputStyle(name string) (string, error) {
	s := eq.settings
	found, err := eq.w.app.outputStyles(s.Cwd, s.Trusted, s.plugins).Find(name)
	if err != nil {
		return "", err
	}
	path, err := saveLocalSetting(eq.settings.Cwd, "outputStyle", found.Name)
	if err != nil {
		return "", err
	}
	return path, nil
}

// saveLocalSetting sets key in the folder's .claude/settings.local.json,
// keeping every other key as it was. The file is read with the bounded
// project-file reader and written through an os.Root of the folder, so a
// link at .claude or at the file cannot send the write elsewhere.
func saveLocalSetting(cwd, key string, value any) (string, error) {
	var rel string
	for _, p := range places.Paths("", places.Project(), places.Settings) {
		if strings.HasSuffix(p, ".local.json") { // Claude Code's own, not shared with the team
			rel = p
		}
	}
	abs := filepath.Join(cwd, rel)
	obj := map[string]json.RawMessage{}
	data, err := projectfile.Read(cwd, abs, projectfile.SettingsLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("read %s: %w", abs, err)
	case len(data) > 0:
		if err := json.Unmarshal(data, &obj); err != nil {
			return "", fmt.Errorf("%s is not a JSON object (%v): fix or remove it, then choose again", abs, err)
		}
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return "", err
	}
	obj[key] = raw
	out, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return "", err
	}
	root, err := os.OpenRoot(cwd)
	if err != nil {
		return "", fmt.Errorf("save %s: %w", abs, err)
	}
	defer root.Close()
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return "", fmt.Errorf("save %s: %w", abs, err)
	}
	tmp := rel + ".tandem-tmp"
	if err := root.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("save %s: %w", abs, err)
	}
	if err := root.Rename(tmp, rel); err != nil {
		_ = root.Remove(tmp)
		return "", fmt.Errorf("save %s: %w", abs, err)
	}
	return abs, nil
}
