package checkpoint

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools/fs"
	"github.com/tandem-agent/tandem/internal/tools/shell"
)

// world is a workspace, a real store and a session with wrapped tools.
type world struct {
	t     *testing.T
	ctx   context.Context
	work  string
	data  string
	st    store.Store
	svc   *Service
	id    string
	tr    *Tracker
	env   *tool.Env
	tools map[string]tool.Tool
}

func newWorld(t *testing.T, cfg Config) *world {
	t.Helper()
	return newWorldOn(t, cfg, "")
}

// newWorldOn is newWorld on the database at dbURL ("": a SQLite file in
// the data folder).
func newWorldOn(t *testing.T, cfg Config, dbURL string) *world {
	t.Helper()
	w := &world{t: t, ctx: context.Background(), work: t.TempDir(), data: t.TempDir()}
	w.work, _ = filepath.EvalSymlinks(w.work)
	if dbURL == "" {
		dbURL = filepath.Join(w.data, "tandem.db")
	}
	st, err := storeopen.Open(context.Background(), dbURL, storeopen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w.st = st
	w.svc = NewService(st, w.data, Options{CollectGrace: time.Nanosecond})
	sess, err := st.CreateSession(w.ctx, store.Session{Cwd: w.work})
	if err != nil {
		t.Fatal(err)
	}
	w.id = sess.ID
	w.tr = w.svc.Tracker(w.id, w.work, cfg, func(msg string) { t.Log("notice:", msg) })
	w.env = tool.NewEnv(w.id, w.work, nil, w.data)
	t.Cleanup(w.env.State.Close)
	w.tools = map[string]tool.Tool{}
	for _, x := range WrapTools(w.tr, []tool.Tool{fs.NewRead(), fs.NewWrite(), fs.NewEdit(), fs.NewMultiEdit(), shell.NewBash()}) {
		w.tools[x.Name()] = x
	}
	return w
}

func (w *world) write(rel, content string) {
	w.t.Helper()
	p := filepath.Join(w.work, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) read(rel string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(w.work, rel))
	return string(b), err == nil
}

// call runs a wrapped tool and fails on an error result.
func (w *world) call(name string, input map[string]any) {
	w.t.Helper()
	raw, _ := json.Marshal(input)
	res, err := w.tools[name].Execute(w.ctx, tool.Call{ID: "c", Name: name, Input: raw, Env: w.env})
	if err != nil || res.IsError {
		w.t.Fatalf("%s %v: %v %s", name, input, err, res.Content)
	}
}

// prompt runs one "turn": a checkpoint, the stored prompt, the work.
func (w *world) prompt(text string, work func()) store.Checkpoint {
	w.t.Helper()
	cp, err := w.tr.Begin(w.ctx, text)
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.st.AppendMessage(w.ctx, w.id, message.Message{Role: message.User, Content: []message.Block{message.TextBlock(text)}}); err != nil {
		w.t.Fatal(err)
	}
	work()
	if _, err := w.st.AppendMessage(w.ctx, w.id, message.Message{Role: message.Assistant, Content: []message.Block{message.TextBlock("ok")}}); err != nil {
		w.t.Fatal(err)
	}
	w.tr.End(w.ctx)
	return cp
}

func (w *world) checkpoints() []store.Checkpoint {
	w.t.Helper()
	cps, err := w.svc.List(w.ctx, w.id)
	if err != nil {
		w.t.Fatal(err)
	}
	return cps
}

func states(cp store.Checkpoint, root string) map[string]string {
	out := map[string]string{}
	for _, f := range cp.Files {
		out[RelPath(root, f.Path)] = f.State
	}
	return out
}
