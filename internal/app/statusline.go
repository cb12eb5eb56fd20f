package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/tandem-agent/tandem/internal/strictjson"
)

// StatusLineTimeout bounds one run of the statusLine command: a slow
// script leaves the line as it was rather than holding anything up.
const StatusLineTimeout = 5 * time.Second

// statusLineMax bounds what is read of its output (only the first line
// is shown).
const statusLineMax = 4096

// statusLineSetting is Claude Code's "statusLine" setting.
type statusLineSetting struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Padding int    `json:"padding"`
}

// StatusLineInput is the JSON a statusLine command reads on stdin, in
// Claude Code's shape (its scripts work unchanged).
type StatusLineInput struct {
	HookEventName  string `json:"hook_event_name"`
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	Version     string `json:"version"`
	OutputStyle struct {
		Name string `json:"name"`
	} `json:"output_style"`
	Cost struct {
		TotalCostUSD      float64 `json:"total_cost_usd"`
		TotalDurationMS   int64   `json:"total_duration_ms"`
		TotalLinesAdded   int     `json:"total_lines_added"`
		TotalLinesRemoved int     `json:"total_lines_removed"`
	} `json:"cost"`
	ContextWindow struct {
		TotalInputTokens  int64    `json:"total_input_tokens"`
		TotalOutputTokens int64    `json:"total_output_tokens"`
		ContextWindowSize int64    `json:"context_window_size"`
		UsedPercentage    *float64 `json:"used_percentage"`
		CurrentUsage      *struct {
			InputTokens int64 `json:"input_tokens"`
		} `json:"current_usage"`
	} `json:"context_window"`
	// Mode is tandem's permission mode (Claude Code has no such field).
	Mode string `json:"permission_mode,omitempty"`
}

// statusLine decodes the session's statusLine setting: ok false when none
// is set; an error names the file and the fix.
func (eq *Equipment) statusLine() (statusLineSetting, bool, error) {
	raw, file := eq.settings.claude.StatusLine, eq.settings.claude.StatusLineFile
	if len(raw) == 0 {
		return statusLineSetting{}, false, nil
	}
	var sl statusLineSetting
	if err := strictjson.Unmarshal(raw, &sl); err != nil {
		return sl, false, fmt.Errorf("statusLine in %s: %w", file, err)
	}
	if sl.Type != "command" || strings.TrimSpace(sl.Command) == "" {
		return sl, false, fmt.Errorf(`statusLine in %s: use {"type": "command", "command": "..."}`, file)
	}
	return sl, true, nil
}

// HasStatusLine reports whether the session has a statusLine command
// (user settings, or a trusted folder's project settings).
func (eq *Equipment) HasStatusLine() bool {
	_, ok, err := eq.statusLine()
	return ok || err != nil // an error is shown in its place
}

// StatusLine runs the statusLine command with the session's state as
// JSON on stdin and returns the first line it prints. It runs as a
// command hook does: in the session's folder, with the scrubbed
// environment, inside the sandbox when it is on, in its own process group
// killed at StatusLineTimeout. "" and no error: no statusLine is set.
func (eq *Equipment) StatusLine(ctx context.Context, contextTokens, contextWindow int64) (string, error) {
	sl, ok, err := eq.statusLine()
	if err != nil || !ok {
		return "", err
	}
	rec := eq.l.Snapshot()
	var in StatusLineInput
	in.HookEventName = "Status"
	in.SessionID, in.Cwd = rec.ID, rec.Cwd
	in.Model.ID, in.Model.DisplayName = rec.Model, rec.Model
	if _, id, found := strings.Cut(rec.Model, "/"); found {
		in.Model.DisplayName = id
	}
	in.Workspace.CurrentDir, in.Workspace.ProjectDir = rec.Cwd, rec.Cwd
	in.Version = eq.w.app.opts.Version
	in.OutputStyle.Name = "default"
	if rec.CostUSD != nil {
		in.Cost.TotalCostUSD = *rec.CostUSD
	}
	in.Cost.TotalDurationMS = time.Since(rec.CreatedAt).Milliseconds()
	in.ContextWindow.TotalInputTokens, in.ContextWindow.TotalOutputTokens = rec.Usage.InputTokens, rec.Usage.OutputTokens
	in.ContextWindow.ContextWindowSize = contextWindow
	if contextWindow > 0 && contextTokens > 0 {
		pct := float64(contextTokens) * 100 / float64(contextWindow)
		in.ContextWindow.UsedPercentage = &pct
		in.ContextWindow.CurrentUsage = &struct {
			InputTokens int64 `json:"input_tokens"`
		}{contextTokens}
	}
	in.Mode = string(rec.Mode)
	stdin, err := json.Marshal(in)
	if err != nil {
		return "", err
	}

	ctx, cancel := context.WithTimeout(ctx, StatusLineTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", sl.Command)
	cmd.Dir = rec.Cwd
	cmd.Env = append(eq.w.secretPolicy(eq.cfg).ScrubEnv(os.Environ()), "CLAUDE_PROJECT_DIR="+rec.Cwd, "TANDEM_PROJECT_DIR="+rec.Cwd)
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &limitWriter{w: &out, n: statusLineMax}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	if eq.sandbox != nil {
		if err := eq.sandbox.Confine(cmd); err != nil {
			return "", fmt.Errorf("statusLine: %w", err)
		}
	}
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("statusLine command ran past %s and was stopped: make it faster (cache slow calls such as git)", StatusLineTimeout)
		}
		return "", fmt.Errorf("statusLine command failed: %w", err)
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	return strings.TrimRight(first, "\r"), nil
}

// limitWriter keeps the first n bytes and discards the rest (the command
// is not stopped by a full pipe).
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
