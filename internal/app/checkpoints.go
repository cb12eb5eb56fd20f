package app

import (
	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
)

// newCheckpoints builds the rewind service. The claude-code runtime's
// conversation lives in the CLI's own transcript, so each checkpoint also
// keeps which transcript and entry the next turn resumes, and a rewind puts
// them back with the point to resume at.
func newCheckpoints(st checkpoint.Store, dataDir string) *checkpoint.Service {
	return checkpoint.NewService(st, dataDir, checkpoint.Options{
		ResumeMeta: []string{claudecode.MetaSessionID, claudecode.MetaLastUUID},
		OnRewind: func(c map[string]string) map[string]string {
			return map[string]string{
				claudecode.MetaSessionID: c[claudecode.MetaSessionID],
				claudecode.MetaLastUUID:  c[claudecode.MetaLastUUID],
				claudecode.MetaResumeAt:  c[claudecode.MetaLastUUID],
			}
		},
	})
}

// checkpointConfig decodes the folder's "checkpoints" section.
func checkpointConfig(cfg *config.Config) (checkpoint.Config, error) {
	var c checkpoint.Config
	if err := decodeSection(cfg, "checkpoints", cfg.Checkpoints, &c); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, &config.Error{File: cfg.SectionSource("checkpoints"), Field: "checkpoints", Msg: err.Error()}
	}
	return c, nil
}

// equipCheckpoints gives a live session its checkpoint recorder and
// returns its tools wrapped so file changes are recorded; nil tracker when
// checkpoints are off for the folder.
func (w *wiring) equipCheckpoints(cfg *config.Config, l *session.Live, eq *Equipment, ts []tool.Tool) ([]tool.Tool, error) {
	c, err := checkpointConfig(cfg)
	if err != nil || c.Disabled {
		return ts, err
	}
	rec := l.Snapshot()
	notice := func(msg string) { l.Events().Emit(event.Event{Type: event.Status, Message: msg}) }
	eq.tracker = w.app.Checkpoints.Tracker(rec.ID, rec.Cwd, c, notice)
	eq.tracker.UseTools(sessionTools(l))
	eq.addExtra(eq.tracker.Close)
	return checkpoint.WrapTools(eq.tracker, ts), nil
}

// withCheckpoint makes a checkpoint before each turn of rt.
func withCheckpoint(rt turn.Runtime, eq *Equipment) turn.Runtime {
	if eq.tracker == nil {
		return rt
	}
	return checkpoint.WrapRuntime(rt, eq.tracker)
}
