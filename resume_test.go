package tandem_test

import (
	"testing"

	"github.com/tandem-agent/tandem"
	"github.com/tandem-agent/tandem/internal/scripted"
)

func TestResumeSeesTheEarlierTurn(t *testing.T) {
	st := newStack(t, scripted.TextStep("The password is swordfish."), scripted.TextStep("You told me before."))
	eng := st.open(tandem.Options{})
	var first recorder
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, OnEvent: first.add})
	if err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if _, err := s.Run(testCtx(t), "remember the password", nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	evs := first.all()
	lastSeq := evs[len(evs)-1].Seq
	// A new engine on the same home, as another process would be.
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	eng = st.open(tandem.Options{})
	var rec recorder
	r, err := eng.ResumeSession(testCtx(t), id, tandem.SessionOptions{OnEvent: rec.add})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.ID() != id || r.Dir() != st.Work {
		t.Errorf("resumed %s in %s, want %s in %s", r.ID(), r.Dir(), id, st.Work)
	}
	res, err := r.Run(testCtx(t), "what was it?", nil)
	if err != nil || res.Text != "You told me before." {
		t.Fatalf("run: %+v, %v", res, err)
	}
	reqs := st.srv.MainRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if !st.requestHas(1, "remember the password") || !st.requestHas(1, "The password is swordfish.") {
		t.Error("the resumed turn's request does not hold the earlier turn")
	}
	// The resumed session numbers its events after the earlier ones.
	for _, e := range rec.all() {
		if e.Seq <= lastSeq {
			t.Fatalf("seq %d after %d: numbering repeats or goes back", e.Seq, lastSeq)
		}
		lastSeq = e.Seq
	}
	// ContinueSession finds the same one by folder.
	c, err := eng.ContinueSession(testCtx(t), st.Work, tandem.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.ID() != id {
		t.Errorf("ContinueSession opened %s, want %s", c.ID(), id)
	}
}
