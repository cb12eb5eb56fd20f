package app

import (
	"os"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/lsp"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/tool"
)

// equipLSP gives the session its language servers (docs/lsp.md): none
// start until an edit needs one; ts come back with the calls that change
// files followed by their new errors, plus the lsp tool when lsp.tool is
// on. Wrapped outside the checkpoint recorder, whose scans report what a
// command changed. The servers stop with the session.
func (w *wiring) equipLSP(s *Settings, l *session.Live, eq *Equipment, ts []tool.Tool) ([]tool.Tool, error) {
	cfg := s.Config
	set, err := lsp.Resolve(cfg.LSP)
	if err != nil {
		return nil, &config.Error{File: cfg.SectionSource("lsp"), Field: "lsp", Msg: err.Error()}
	}
	if set.Disabled {
		return ts, nil
	}
	rec := l.Snapshot()
	var bins []string
	if s.Trusted {
		// A project's own install runs only when the user trusts it.
		bins = []string{filepath.Join(rec.Cwd, "node_modules", ".bin")}
	}
	policy := w.secretPolicy(cfg)
	opts := lsp.Options{Settings: set, Roots: l.Roots(), BinDirs: bins,
		Env:    policy.ScrubEnv(os.Environ()),
		Redact: policy.Redactor(os.Environ()).Redact,
		Notice: func(msg string) { l.Events().Emit(event.Event{Type: event.Status, Message: msg}) }}
	if eq.sandbox != nil {
		opts.Starter = eq.sandbox
	}
	m := lsp.New(opts)
	eq.addExtra(m.Close)
	ts = lsp.WrapTools(m, ts)
	if set.Tool {
		ts = append(ts, lsp.NewTool(m))
	}
	return ts, nil
}
