package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/structured"
	"github.com/tandem-agent/tandem/internal/tool"
)

func checkRuntime(rt string) *apiError {
	if _, err := runtimes.Parse(rt); err != nil {
		return errf(http.StatusBadRequest, "bad_runtime", "%v", err)
	}
	return nil
}

func checkMode(m string) (string, *apiError) {
	pm, err := permission.ParseMode(m)
	if err != nil {
		return "", errf(http.StatusBadRequest, "bad_mode", "%v", err)
	}
	return string(pm), nil
}

// requireWorkspace refuses a folder outside every registered workspace.
func (s *Server) requireWorkspace(ctx context.Context, cwd string) *apiError {
	_, ok, err := s.workspaces.WorkspaceForPath(ctx, cwd)
	if err != nil {
		return storeError(err, "workspace", cwd)
	}
	if !ok {
		return errf(http.StatusForbidden, "workspace_not_registered",
			"%s is not inside a registered workspace: register it first with POST /api/workspaces {\"path\": %q} (or pick the folder in the web UI)", cwd, cwd)
	}
	return nil
}

type createSessionReq struct {
	Cwd     string `json:"cwd"`
	Runtime string `json:"runtime,omitempty"`
	Model   string `json:"model,omitempty"`
	Mode    string `json:"mode,omitempty"`
	Title   string `json:"title,omitempty"`
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	var req createSessionReq
	if e := decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	if req.Cwd == "" || !filepath.IsAbs(req.Cwd) {
		writeError(w, errf(http.StatusBadRequest, "bad_cwd", "cwd must be an absolute folder path (got %q)", req.Cwd))
		return
	}
	req.Cwd = filepath.Clean(req.Cwd)
	if s.base.Err() != nil {
		writeError(w, errf(http.StatusServiceUnavailable, "shutting_down", "the server is shutting down"))
		return
	}
	if e := s.requireWorkspace(r.Context(), req.Cwd); e != nil {
		writeError(w, e)
		return
	}
	// Fields left out fall to the server's flags, then to the folder's
	// configuration, which the session manager resolves (and validates,
	// model included) before anything is stored.
	req.Runtime = cmp.Or(req.Runtime, s.opts.DefaultRuntime)
	req.Model = cmp.Or(strings.TrimSpace(req.Model), s.opts.DefaultModel)
	if req.Runtime != "" {
		if e := checkRuntime(req.Runtime); e != nil {
			writeError(w, e)
			return
		}
	}
	mode := cmp.Or(req.Mode, s.opts.DefaultMode)
	if mode != "" {
		m, e := checkMode(mode)
		if e != nil {
			writeError(w, e)
			return
		}
		mode = m
	}
	// The hub is a sink from the start: events emitted while the session
	// is opened and equipped take seqs, and a hub that missed them would
	// refuse the page's stream (resuming after them) as ahead of it.
	h := s.newHub(0)
	l, err := s.mgr.Open(r.Context(), session.OpenRequest{Cwd: req.Cwd, Model: req.Model, Runtime: req.Runtime, Mode: mode, Title: req.Title,
		Sinks: []event.Sink{s.sinkFor(h)}, AnswerByReply: true, FlagRules: s.opts.FlagRules})
	if err != nil {
		writeError(w, openError(err, http.StatusBadRequest, "could not start the session: %v"))
		return
	}
	st := s.adopt(l, h)
	rec, err := s.mgr.Find(r.Context(), st.id)
	if err != nil {
		writeError(w, storeError(err, "session", st.id))
		return
	}
	writeJSON(w, http.StatusCreated, toSessionJSON(rec))
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opt := session.ListOptions{Cwd: q.Get("cwd")}
	for name, dst := range map[string]*int{"limit": &opt.Limit, "offset": &opt.Offset} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				writeError(w, errf(http.StatusBadRequest, "bad_query", "%s must be a non-negative integer (got %q)", name, v))
				return
			}
			*dst = n
		}
	}
	if opt.Cwd != "" {
		opt.Cwd = filepath.Clean(opt.Cwd)
	}
	recs, err := s.listVisible(r.Context(), callerOf(r), opt)
	if err != nil {
		writeError(w, storeError(err, "session", ""))
		return
	}
	out := make([]sessionJSON, 0, len(recs))
	shared := s.sharedStatuses(r.Context()) // turns on any replica (turnstatus.go)
	for _, rec := range recs {
		j := toSessionJSON(rec)
		s.mu.Lock()
		st := s.sessions[rec.ID]
		s.mu.Unlock()
		var sn snapshot
		if st != nil {
			sn = st.snapshot()
		}
		j.setLive(withTurns(sn, shared[rec.ID]))
		out = append(out, j)
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": out})
}

// getSession returns the session with its messages up to the snapshot
// boundary; last_seq is where the event stream continues from.
func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	st, e := s.state(r.Context(), r.PathValue("id"))
	if e != nil {
		writeError(w, e)
		return
	}
	sn := s.sharedSnapshot(r.Context(), st, st.snapshot())
	rec, err := s.mgr.Find(r.Context(), st.id)
	if err != nil {
		writeError(w, storeError(err, "session", st.id))
		return
	}
	msgs, err := s.messagesAt(r.Context(), st.id, sn.boundaryMsgs)
	if err != nil {
		writeError(w, storeError(err, "session", st.id))
		return
	}
	j := toSessionJSON(rec)
	j.LastSeq = sn.boundarySeq
	j.setLive(sn)
	if msgs == nil {
		msgs = []message.Message{}
	}
	kids, err := s.subagents(r.Context(), st.id, msgs)
	if err != nil {
		writeError(w, storeError(err, "session", st.id))
		return
	}
	d := sessionDetail{sessionJSON: j, Messages: msgs, Subagents: kids}
	// A floor that rises again before the client subscribes gets it
	// reload_required, and it asks again.
	if floor := st.hub.floorSeq(); floor > sn.boundarySeq {
		d.StreamFloor = floor
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) usage(w http.ResponseWriter, r *http.Request) {
	rec, err := s.mgr.Find(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, storeError(err, "session", r.PathValue("id")))
		return
	}
	writeJSON(w, http.StatusOK, usageJSON{SessionID: rec.ID, Usage: rec.Usage, CostUSD: rec.CostUSD, MessageCount: rec.MessageCount})
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	st, e := s.state(r.Context(), r.PathValue("id"))
	if e != nil {
		writeError(w, e)
		return
	}
	if err := st.stop(r.Context(), true); err != nil {
		writeError(w, errf(http.StatusServiceUnavailable, "busy", "the session's turn did not stop in time: %v", err))
		return
	}
	s.mu.Lock()
	delete(s.sessions, st.id)
	s.mu.Unlock()
	del := s.mgr.Delete
	if s.opts.Checkpoints != nil {
		del = s.opts.Checkpoints.DeleteSession // with its snapshots
	}
	if err := del(r.Context(), st.id); err != nil {
		writeError(w, storeError(err, "session", st.id))
		return
	}
	if err := tool.RemoveSpill(s.opts.DataDir, st.id); err != nil {
		s.log.Warn("delete session tool output", "err", err)
	}
	w.WriteHeader(http.StatusNoContent)
}

type patchReq struct {
	Model   *string `json:"model,omitempty"`
	Runtime *string `json:"runtime,omitempty"`
	Mode    *string `json:"mode,omitempty"`
}

// patchSession changes model, runtime or mode. Model and runtime apply from
// the next turn; a mode change reaches the permission engine at once.
func (s *Server) patchSession(w http.ResponseWriter, r *http.Request) {
	var req patchReq
	if e := decodeBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	var model, rt, mode string
	if req.Model != nil {
		if model = strings.TrimSpace(*req.Model); model == "" {
			writeError(w, errf(http.StatusBadRequest, "bad_model", "model must not be empty"))
			return
		}
	}
	if req.Runtime != nil {
		rt = *req.Runtime
		if e := checkRuntime(rt); e != nil {
			writeError(w, e)
			return
		}
	}
	if req.Mode != nil {
		m, e := checkMode(*req.Mode)
		if e != nil {
			writeError(w, e)
			return
		}
		mode = m
	}
	l, ok := s.liveFor(w, r)
	if !ok {
		return
	}
	id := l.ID()
	if model != "" {
		// The same check a new session's model gets (unknown model, missing key).
		var bad *session.ModelError
		if err := l.SetModel(r.Context(), model); errors.As(err, &bad) {
			e := openError(bad.Err, http.StatusBadRequest, "%v")
			if e.Code == "open_failed" {
				e.Code = "bad_model"
			}
			writeError(w, e)
			return
		} else if err != nil {
			writeError(w, storeError(err, "session", id))
			return
		}
	}
	if err := l.Update(r.Context(), "", rt, mode); err != nil {
		writeError(w, storeError(err, "session", id))
		return
	}
	if mode != "" {
		s.saveSeq(l)
	}
	rec, err := s.mgr.Find(r.Context(), id)
	if err != nil {
		writeError(w, storeError(err, "session", id))
		return
	}
	writeJSON(w, http.StatusOK, toSessionJSON(rec))
}

type messageReq struct {
	Text string `json:"text"`
	// Per-turn options, as `tandem run` flags.
	MaxTurns           int      `json:"max_turns,omitempty"`
	MaxBudgetUSD       float64  `json:"max_budget_usd,omitempty"`
	AppendSystemPrompt string   `json:"append_system_prompt,omitempty"`
	DisallowedTools    []string `json:"disallowed_tools,omitempty"`
	// JSONSchema makes the final answer conform to it (as --json-schema).
	JSONSchema json.RawMessage `json:"json_schema,omitempty"`
	// Images attached to the prompt (images.go).
	Images []imagePart `json:"images,omitempty"`
}

func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) {
	var req messageReq
	if e := decodeBodyMax(w, r, &req, maxMessageBody); e != nil {
		writeError(w, e)
		return
	}
	if strings.TrimSpace(req.Text) == "" {
		writeError(w, errf(http.StatusBadRequest, "empty_text", "text must not be empty"))
		return
	}
	if req.MaxTurns < 0 {
		writeError(w, errf(http.StatusBadRequest, "bad_max_turns", "max_turns must be 0 (no limit) or more"))
		return
	}
	if req.MaxBudgetUSD < 0 {
		writeError(w, errf(http.StatusBadRequest, "bad_max_budget_usd", "max_budget_usd must be an amount in US dollars, e.g. 2.5 (0: no limit)"))
		return
	}
	if len(req.JSONSchema) > 0 {
		if _, err := structured.Compile(req.JSONSchema); err != nil {
			writeError(w, errf(http.StatusBadRequest, "bad_json_schema", "json_schema: %v", err))
			return
		}
	}
	images, e := imageBlocks(req, maxBody)
	if e != nil {
		writeError(w, e)
		return
	}
	s.startTurn(w, r, queuedTurn{text: req.Text, opts: session.TurnOptions{
		MaxTurns: req.MaxTurns, MaxBudgetUSD: req.MaxBudgetUSD, AppendSystemPrompt: req.AppendSystemPrompt, DisallowedTools: req.DisallowedTools,
		JSONSchema: req.JSONSchema, Images: images}})
}

// startTurn queues a turn on the session named in the path and answers 202.
func (s *Server) startTurn(w http.ResponseWriter, r *http.Request, turn queuedTurn) {
	st, e := s.state(r.Context(), r.PathValue("id"))
	if e != nil {
		writeError(w, e)
		return
	}
	rec, err := s.mgr.Find(r.Context(), st.id)
	if err != nil {
		writeError(w, storeError(err, "session", st.id))
		return
	}
	if e := s.requireWorkspace(r.Context(), rec.Cwd); e != nil {
		writeError(w, e)
		return
	}
	if e := s.admitTurn(r, &turn); e != nil {
		writeError(w, e)
		return
	}
	queued, pos, err := s.enqueue(r.Context(), st, turn)
	if err != nil {
		s.turnRefused(turn)
	}
	switch {
	case errors.Is(err, errStopping):
		writeError(w, errf(http.StatusServiceUnavailable, "shutting_down", "the server is shutting down"))
		return
	case errors.Is(err, session.ErrNotFound):
		writeError(w, errf(http.StatusNotFound, "not_found", "no session %q", st.id))
		return
	case err != nil:
		writeError(w, openError(err, http.StatusInternalServerError, "could not start the turn: %v"))
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"session_id": st.id, "queued": queued, "position": pos})
}

func (s *Server) interrupt(w http.ResponseWriter, r *http.Request) {
	st, e := s.state(r.Context(), r.PathValue("id"))
	if e != nil {
		writeError(w, e)
		return
	}
	var was bool
	var dropped int
	if s.opts.Turns != nil {
		was, dropped = s.interruptDurable(r.Context(), st)
	} else {
		was, dropped = st.interrupt()
	}
	writeJSON(w, http.StatusOK, map[string]any{"interrupted": was, "dropped_queued": dropped})
}

// listBatch is how many sessions listVisible reads from the store at a
// time.
const listBatch = 200

// listVisible is a page of the sessions c may see: offset and limit count
// those alone. An admin's page is the store's; anyone else's is read in
// batches, each filtered by c's workspaces, until the page is full, so a
// page of other people's sessions neither shortens nor hides theirs.
func (s *Server) listVisible(ctx context.Context, c *caller, opt session.ListOptions) ([]session.Summary, error) {
	if c.admin() {
		return s.mgr.List(ctx, opt)
	}
	visible := s.canSee(ctx, c)
	skip := opt.Offset
	out := []session.Summary{}
	for from := 0; ; from += listBatch {
		recs, err := s.mgr.List(ctx, session.ListOptions{Cwd: opt.Cwd, Limit: listBatch, Offset: from})
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			switch {
			case !visible(rec.Cwd):
			case skip > 0:
				skip--
			default:
				out = append(out, rec)
				if opt.Limit > 0 && len(out) == opt.Limit {
					return out, nil
				}
			}
		}
		if len(recs) < listBatch {
			return out, nil
		}
	}
}
