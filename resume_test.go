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

func TestSessionsListsStoredSessions(t *testing.T) {
	st := newStack(t, scripted.TextStep("one"), scripted.TextStep("two"))
	eng := st.open(tandem.Options{})
	var ids []string
	for _, title := range []string{"first", "second"} {
		s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, Title: title})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(testCtx(t), "hi", nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID())
		s.Close()
	}
	got, err := eng.Sessions(testCtx(t), tandem.ListOptions{Dir: st.Work})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != ids[1] || got[1].ID != ids[0] || got[0].Title != "second" {
		t.Fatalf("sessions: %+v", got)
	}
	if got[0].Dir != st.Work || got[0].Model != "anthropic/claude-sonnet-5-5" || got[0].MessageCount != 2 || got[0].Usage.OutputTokens == 0 {
		t.Errorf("first listed: %+v", got[0])
	}
	if one, err := eng.Sessions(testCtx(t), tandem.ListOptions{Limit: 1}); err != nil || len(one) != 1 {
		t.Errorf("limit 1: %d, %v", len(one), err)
	}
	if other, err := eng.Sessions(testCtx(t), tandem.ListOptions{Dir: t.TempDir()}); err != nil || len(other) != 0 {
		t.Errorf("another folder: %+v, %v", other, err)
	}
}
