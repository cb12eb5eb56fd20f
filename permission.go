package tandem

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tandem-agent/tandem/internal/permission"
)

// PermissionMode says how much a session may do without asking.
type PermissionMode string

const (
	// ModeExplore (Claude Code's "plan") reads and searches; anything that
	// changes files or runs commands is refused.
	ModeExplore PermissionMode = "explore"
	// ModeNormal (Claude Code's "default") runs reads, edits inside the
	// session's folders and safe commands, and asks for the rest.
	ModeNormal PermissionMode = "normal"
	// ModeAcceptEdits is ModeNormal where shell commands that only create,
	// copy or move files inside the folders (mkdir, touch, cp, mv, tee,
	// redirections) run too.
	ModeAcceptEdits PermissionMode = "acceptEdits"
	// ModeTrust ("bypassPermissions") runs everything inside the folders
	// that the rules do not deny; protected paths still ask.
	ModeTrust PermissionMode = "trust"
	// ModeDontAsk is ModeNormal where every question becomes a denial, so
	// the Permission callback is never called.
	ModeDontAsk PermissionMode = "dontAsk"
)

// PermissionRequest is a tool call waiting for a decision.
type PermissionRequest struct {
	ID        string          // the permission_request event's request_id
	SessionID string          // the asking session
	ToolName  string          // "Bash", "Write", "mcp__server__tool", a custom tool's name
	ToolUseID string          // the model's id of the call
	Input     json.RawMessage // the call's input as the model sent it
	// Summary is one human line: "Run `rm -rf build`", "Edit src/main.go".
	Summary string
	// Reason says why the call needs approval.
	Reason string
	// Suggestion is the rule that AllowAlways would save (Claude Code
	// syntax, comma separated); empty when AllowAlways is not offered.
	Suggestion string
	// Diff previews an edit.
	Diff string
}

// AlwaysOffered reports whether the request may be answered AllowAlways
// (interpreters, wrappers and protected paths are approved one call at a
// time).
func (r PermissionRequest) AlwaysOffered() bool { return r.Suggestion != "" }

// PermissionBehavior is the kind of a decision.
type PermissionBehavior string

const (
	AllowOnce   PermissionBehavior = "allow_once"   // run this call
	AllowAlways PermissionBehavior = "allow_always" // run it and calls like it (PermissionRequest.Suggestion)
	Deny        PermissionBehavior = "deny"         // refuse; Message tells the model why
)

// PermissionScope says where an AllowAlways rule is kept.
type PermissionScope string

const (
	ScopeSession PermissionScope = "session" // this session, in memory (the default)
	ScopeProject PermissionScope = "project" // the folder, stored for later sessions
	ScopeUser    PermissionScope = "user"    // every folder of this home
)

// PermissionDecision answers a PermissionRequest.
type PermissionDecision struct {
	Behavior PermissionBehavior
	// Scope is where an AllowAlways rule is kept ("" means ScopeSession).
	Scope PermissionScope
	// Message, with Deny, is passed to the model as the reason.
	Message string
	// UpdatedInput, with an allow, replaces the call's input.
	UpdatedInput json.RawMessage
}

// PermissionFunc decides a tool call that the permission rules and mode
// leave to the user. It is called on its own goroutine and should return
// when ctx ends (the turn was interrupted). An invalid decision (AllowAlways
// where it is not offered, an unknown behaviour) and a panic deny the call
// with a message saying so.
type PermissionFunc func(ctx context.Context, req PermissionRequest) PermissionDecision

// asker adapts a PermissionFunc to the engine's asker; by names who
// answered in permission_reply events.
func asker(f PermissionFunc) permission.Asker {
	return permission.AskerFunc(func(ctx context.Context, q permission.Question) (ans permission.Answer, err error) {
		defer func() {
			if p := recover(); p != nil {
				ans, err = permission.Answer{Decision: permission.DenyCall, By: "api",
					Message: fmt.Sprintf("the program's permission callback failed (%v); the call was not run", p)}, nil
			}
		}()
		d := f(ctx, publicQuestion(q))
		ans = permission.Answer{Decision: string(d.Behavior), Scope: permission.Scope(d.Scope), Message: d.Message,
			UpdatedInput: d.UpdatedInput, By: "api"}
		if verr := ans.Validate(q); verr != nil {
			// The broker would wait for a valid answer that never comes.
			return permission.Answer{Decision: permission.DenyCall, By: "api",
				Message: "the program's permission callback gave an invalid decision: " + verr.Error()}, nil
		}
		return ans, nil
	})
}

func publicQuestion(q permission.Question) PermissionRequest {
	return PermissionRequest{ID: q.RequestID, SessionID: q.SessionID, ToolName: q.ToolName, ToolUseID: q.ToolUseID,
		Input: q.Input, Summary: q.Summary, Reason: q.Reason, Suggestion: q.Suggestion, Diff: q.Diff}
}
