package tool

// Turn is what a tool may need to know of the turn it runs in (the
// sub-agent tools start children with the same model, mode and tool
// filters). The session sets it before each turn.
type Turn struct {
	Model           string
	Mode            string
	AllowedTools    []string
	DisallowedTools []string
}

type turnState struct {
	turn  Turn
	ended []func()
}

const turnKey = "tool.turn"

func (s *State) turnState() *turnState {
	return s.Load(turnKey, func() any { return &turnState{} }).(*turnState)
}

// SetTurn records the turn about to run.
func (s *State) SetTurn(t Turn) {
	ts := s.turnState()
	s.mu.Lock()
	ts.turn = t
	s.mu.Unlock()
}

// Turn returns the running turn's settings.
func (s *State) Turn() Turn {
	ts := s.turnState()
	s.mu.Lock()
	defer s.mu.Unlock()
	return ts.turn
}

// OnTurnEnd registers f to run when the current turn ends (a skill's
// pre-approved tools last until then).
func (s *State) OnTurnEnd(f func()) {
	ts := s.turnState()
	s.mu.Lock()
	ts.ended = append(ts.ended, f)
	s.mu.Unlock()
}

// EndTurn runs the OnTurnEnd functions, last first.
func (s *State) EndTurn() {
	ts := s.turnState()
	s.mu.Lock()
	fs := ts.ended
	ts.ended = nil
	s.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}
