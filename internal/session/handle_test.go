package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
)

// answers is a session's own permission questions (Capabilities.Permissions).
type answers struct {
	id  string
	got []string
}

func (a *answers) Reply(requestID string, _ permission.Answer) error {
	if requestID != a.id {
		return permission.ErrUnknownRequest
	}
	a.got = append(a.got, requestID)
	return nil
}
func (a *answers) Pending() []permission.Question { return nil }

// A front end reaches what the equipment offers through the Live, each
// session its own: a reply goes to the session it is given to, never
// another's.
func TestLiveReplyReachesItsOwnSession(t *testing.T) {
	m, w, work := setup(t)
	ctx := context.Background()
	a := &answers{id: "perm_a"}
	w.caps = Capabilities{Permissions: a}
	la, err := m.Open(ctx, OpenRequest{Cwd: work, Model: "p/m"})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Close()
	b := &answers{id: "perm_b"}
	w.caps = Capabilities{Permissions: b}
	lb, err := m.Open(ctx, OpenRequest{Cwd: work, Model: "p/m"})
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	if err := la.Reply("perm_b", permission.Answer{Decision: permission.AllowOnce}); !errors.Is(err, permission.ErrUnknownRequest) {
		t.Errorf("session a answered b's question: %v", err)
	}
	if err := lb.Reply("perm_b", permission.Answer{Decision: permission.AllowOnce}); err != nil {
		t.Fatal(err)
	}
	if len(a.got) != 0 || len(b.got) != 1 {
		t.Errorf("answers reached a %q and b %q, want only b's", a.got, b.got)
	}
}

// Equipment that offers nothing beyond turns: the Live says so rather
// than failing obscurely, and a front end needs no check of its own.
func TestLiveWithoutCapabilities(t *testing.T) {
	m, _, work := setup(t)
	l, err := m.Open(context.Background(), OpenRequest{Cwd: work, Model: "p/m", Mode: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Reply("perm_1", permission.Answer{Decision: permission.AllowOnce}); !errors.Is(err, permission.ErrUnknownRequest) {
		t.Errorf("Reply: %v, want ErrUnknownRequest", err)
	}
	if err := l.MCPAction("srv", "enable"); !errors.Is(err, ErrNotWired) {
		t.Errorf("MCPAction: %v, want ErrNotWired", err)
	}
	if err := l.SandboxAllow("example.com"); !errors.Is(err, ErrNotWired) {
		t.Errorf("SandboxAllow: %v, want ErrNotWired", err)
	}
	if _, err := l.Checkpoints(context.Background()); !errors.Is(err, ErrNotWired) {
		t.Errorf("Checkpoints: %v, want ErrNotWired", err)
	}
	if s, p, wired := l.MCPStatus(); wired || s == nil || p == nil {
		t.Errorf("MCPStatus: %v %v wired=%v, want empty lists, not wired", s, p, wired)
	}
	if _, ok := l.Extensions(); ok {
		t.Error("Extensions: ok without the capability")
	}
	// Without an engine the mode in force is the stored one, canonical.
	if got := l.Info().Mode; got != string(permission.Explore) {
		t.Errorf("Info().Mode = %q, want explore", got)
	}
}

// modelWiring refuses one model, as a Resolver refuses an unknown one.
type modelWiring struct{ fakeWiring }

func (w *modelWiring) Resolve(_ context.Context, rec store.Session, checkModel bool) (Resolved, error) {
	if checkModel && rec.Model == "p/unknown" {
		return Resolved{}, errors.New("model p/unknown: not in the catalog")
	}
	return Resolved{Model: rec.Model, Mode: permission.Mode(rec.Mode)}, nil
}

// SetModel checks the model as a new session's is checked; a refusal is a
// *ModelError and changes nothing.
func TestSetModelChecks(t *testing.T) {
	dir := t.TempDir()
	st, err := storeopen.Open(context.Background(), filepath.Join(dir, "t.db"), storeopen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	w := &modelWiring{fakeWiring{rt: &echoRuntime{}}}
	ctx := context.Background()
	l, err := NewManager(st, w, dir).Open(ctx, OpenRequest{Cwd: work, Model: "p/a"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var bad *ModelError
	if err := l.SetModel(ctx, "p/unknown"); !errors.As(err, &bad) || bad.Model != "p/unknown" {
		t.Errorf("SetModel(p/unknown) = %v, want a *ModelError", err)
	}
	if got := l.Snapshot().Model; got != "p/a" {
		t.Errorf("model after a refused switch: %s", got)
	}
	if err := l.SetModel(ctx, "p/b"); err != nil || l.Snapshot().Model != "p/b" {
		t.Errorf("SetModel(p/b): %v, model %s", err, l.Snapshot().Model)
	}
	if err := l.SetMode(ctx, "bogus"); err == nil {
		t.Error("SetMode(bogus) succeeded")
	}
}
