package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/regular"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/tool"
)

// redacting blanks secret values in a tool's result (defence in depth: a
// Read of a file holding the user's API key, a WebFetch echoing it back).
// Bash redacts its own stream as it goes.
type redacting struct {
	tool.Tool
	r *secrets.Redactor
}

func (t redacting) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	if msg := t.clobbersSecret(call); msg != "" {
		return tool.ErrorResult(msg), nil
	}
	res, err := t.Tool.Execute(ctx, call)
	if t.r.Contains(res.Content) || t.r.Contains(res.Diff) {
		res.Content = t.r.Redact(res.Content) + "\n\n(" + secrets.Placeholder + " stands for a secret value tandem does not show; change the lines around it with Edit, since a Write of this text would replace the secret with the placeholder.)"
		res.Diff = t.r.Redact(res.Diff)
	}
	return res, err
}

// clobbersSecret stops a Write that would put the placeholder where the
// file now holds a secret: the model saw the file redacted, and writing
// back what it saw would destroy the user's key.
func (t redacting) clobbersSecret(call tool.Call) string {
	if t.Name() != "Write" {
		return ""
	}
	var in struct {
		FilePath string `json:"file_path"`
		Content  string `json:"content"`
	}
	if json.Unmarshal(call.Input, &in) != nil || !strings.Contains(in.Content, secrets.Placeholder) {
		return ""
	}
	p := in.FilePath
	if !filepath.IsAbs(p) && call.Env != nil {
		p = filepath.Join(call.Env.WorkDir, p)
	}
	old, _, err := regular.ReadCapped(p, 16<<20)
	if err != nil || !t.r.Contains(string(old)) {
		return ""
	}
	return "Write refused: " + p + " holds a secret value that was shown to you as " + secrets.Placeholder +
		"; this content would replace it with the placeholder. Change the other lines with Edit instead."
}

// Unwrap is the wrapped tool, whose declarations (tool.AccessorOf) hold.
func (t redacting) Unwrap() tool.Tool { return t.Tool }

// ReadOnly keeps the wrapped tool's declaration.
func (t redacting) ReadOnly() bool {
	ro, ok := t.Tool.(tool.ReadOnly)
	return ok && ro.ReadOnly()
}

func redactAll(ts []tool.Tool, r *secrets.Redactor) []tool.Tool {
	if r.Empty() {
		return ts
	}
	out := make([]tool.Tool, len(ts))
	for i, t := range ts {
		out[i] = redacting{Tool: t, r: r}
	}
	return out
}

// Unavailable keeps the wrapped tool's tool.Availability.
func (t redacting) Unavailable(model string) string { return tool.UnavailableReason(t.Tool, model) }
