package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A project's statusLine runs only in a trusted folder: untrusted, it is
// left out (and said), as a hook is; trusted, it is the session's.
func TestProjectStatusLineNeedsTrust(t *testing.T) {
	const setting = `{"statusLine":{"type":"command","command":"echo project"}}`
	a, work := testApp(t, nil)
	writeTestFile(t, filepath.Join(work, ".claude", "settings.json"), setting)
	s, err := a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.claude.StatusLine) != 0 {
		t.Errorf("an untrusted folder's statusLine is in force: %s", s.claude.StatusLine)
	}
	var said bool
	for _, f := range s.LeftOut {
		said = said || f.Key == "statusLine"
	}
	if !said {
		t.Errorf("statusLine not among what is left out: %+v", s.LeftOut)
	}

	a, work = testApp(t, nil, func(o *Options) { o.TrustProject = true })
	writeTestFile(t, filepath.Join(work, ".claude", "settings.json"), setting)
	if s, err = a.ResolveSettings(context.Background(), SettingsRequest{Cwd: work}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(s.claude.StatusLine), "echo project") {
		t.Errorf("a trusted folder's statusLine is missing: %q", s.claude.StatusLine)
	}
}
