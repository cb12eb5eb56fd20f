package acp

import (
	"context"
	"errors"
	"fmt"
	"sort"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
)

// Config option ids, for clients that pick mode and model through
// session/set_config_option.
const (
	optMode  = "mode"
	optModel = "model"
)

// modes are the permission modes an editor may switch between, in the
// order a mode picker shows them.
var modes = []struct {
	id   permission.Mode
	name string
	desc string
}{
	{permission.Explore, "Explore", "Read-only: reads and searches run, nothing is changed"},
	{permission.Normal, "Normal", "Reads and workspace edits run; risky commands ask first"},
	{permission.Trust, "Trust", "Everything inside the workspace runs without asking; protected paths still ask"},
}

type sessionState struct {
	modes   *acpsdk.SessionModeState
	models  *acpsdk.SessionModelState
	options []acpsdk.SessionConfigOption
}

// state describes a session's mode and model choices.
func (ag *Agent) state(s *liveSession) sessionState {
	cur := currentMode(s)
	ms := &acpsdk.SessionModeState{CurrentModeId: acpsdk.SessionModeId(cur)}
	modeOpts := acpsdk.SessionConfigSelectOptionsUngrouped{}
	for _, m := range modes {
		ms.AvailableModes = append(ms.AvailableModes, acpsdk.SessionMode{Id: acpsdk.SessionModeId(m.id), Name: m.name, Description: acpsdk.Ptr(m.desc)})
		modeOpts = append(modeOpts, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(m.id), Name: m.name, Description: acpsdk.Ptr(m.desc)})
	}
	model := s.live.Info().Model
	models := ag.models(model)
	mst := &acpsdk.SessionModelState{CurrentModelId: acpsdk.ModelId(model)}
	modelOpts := acpsdk.SessionConfigSelectOptionsUngrouped{}
	for _, m := range models {
		mst.AvailableModels = append(mst.AvailableModels, acpsdk.ModelInfo{ModelId: acpsdk.ModelId(m.ID), Name: m.Label()})
		modelOpts = append(modelOpts, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(m.ID), Name: m.Label()})
	}
	return sessionState{modes: ms, models: mst, options: []acpsdk.SessionConfigOption{
		selectOption(optMode, "Mode", acpsdk.SessionConfigOptionCategoryMode, string(cur), modeOpts),
		selectOption(optModel, "Model", acpsdk.SessionConfigOptionCategoryModel, model, modelOpts),
	}}
}

func selectOption(id, name string, cat acpsdk.SessionConfigOptionCategory, cur string, opts acpsdk.SessionConfigSelectOptionsUngrouped) acpsdk.SessionConfigOption {
	o := acpsdk.NewSessionConfigOptionSelect(acpsdk.SessionConfigValueId(cur), acpsdk.SessionConfigSelectOptions{Ungrouped: &opts})
	o.Select.Id, o.Select.Name, o.Select.Category = acpsdk.SessionConfigId(id), name, acpsdk.Ptr(cat)
	return o
}

// models lists catalog models whose provider has a key, plus the current
// one (which may be a custom provider's).
func (ag *Agent) models(current string) []app.ModelChoice {
	list := ag.app.ModelChoices()
	seen := false
	for _, m := range list {
		seen = seen || m.ID == current
	}
	if !seen && current != "" {
		list = append(list, app.ModelChoice{ID: current, Name: current})
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	return list
}

func currentMode(s *liveSession) permission.Mode { return s.live.Mode() }

// SetSessionMode switches the permission mode for the turns that follow
// (and for asks still to come in a running turn).
func (ag *Agent) SetSessionMode(ctx context.Context, p acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	s, err := ag.lookup(p.SessionId)
	if err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	if err := ag.setMode(ctx, s, string(p.ModeId)); err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	return acpsdk.SetSessionModeResponse{}, nil
}

func (ag *Agent) setMode(ctx context.Context, s *liveSession, id string) error {
	m, err := permission.ParseMode(id)
	if err != nil {
		return acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	// The engine emits mode_changed, which becomes current_mode_update.
	if err := s.live.SetMode(ctx, string(m)); err != nil {
		return fmt.Errorf("set mode: %w", err)
	}
	return nil
}

func (ag *Agent) setModel(ctx context.Context, s *liveSession, id string) error {
	var bad *session.ModelError
	if err := s.live.SetModel(ctx, id); errors.As(err, &bad) {
		return acpsdk.NewInvalidParams(map[string]any{"error": bad.Error()})
	} else if err != nil {
		return fmt.Errorf("set model: %w", err)
	}
	return nil
}

// SetSessionConfigOption sets the mode or the model.
func (ag *Agent) SetSessionConfigOption(ctx context.Context, p acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return acpsdk.SetSessionConfigOptionResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": "tandem's options (mode, model) take a value id, not a boolean"})
	}
	s, err := ag.lookup(v.SessionId)
	if err != nil {
		return acpsdk.SetSessionConfigOptionResponse{}, err
	}
	switch string(v.ConfigId) {
	case optMode:
		err = ag.setMode(ctx, s, string(v.Value))
	case optModel:
		err = ag.setModel(ctx, s, string(v.Value))
	default:
		err = acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown config option %q: use %q or %q", v.ConfigId, optMode, optModel)})
	}
	if err != nil {
		return acpsdk.SetSessionConfigOptionResponse{}, err
	}
	return acpsdk.SetSessionConfigOptionResponse{ConfigOptions: ag.state(s).options}, nil
}

// UnstableSetSessionModel is session/set_model, which clients older than
// config options use to pick a model.
func (ag *Agent) UnstableSetSessionModel(ctx context.Context, p acpsdk.UnstableSetSessionModelRequest) (acpsdk.UnstableSetSessionModelResponse, error) {
	s, err := ag.lookup(p.SessionId)
	if err != nil {
		return acpsdk.UnstableSetSessionModelResponse{}, err
	}
	if err := ag.setModel(ctx, s, string(p.ModelId)); err != nil {
		return acpsdk.UnstableSetSessionModelResponse{}, err
	}
	return acpsdk.UnstableSetSessionModelResponse{}, nil
}

// announce tells the client which slash commands the session offers.
func (ag *Agent) announce(ctx context.Context, s *liveSession) {
	var cmds []acpsdk.AvailableCommand
	for _, c := range ag.app.SlashCommands(s.live.Info().Cwd) {
		ac := acpsdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.ArgumentHint != "" {
			ac.Input = &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: c.ArgumentHint}}
		}
		cmds = append(cmds, ac)
	}
	if cmds == nil {
		cmds = []acpsdk.AvailableCommand{}
	}
	_ = ag.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: acpsdk.SessionId(s.live.ID()),
		Update: acpsdk.SessionUpdate{AvailableCommandsUpdate: &acpsdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}}})
}
