package tool

import (
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/permit"
)

// Kind is what a tool does, in the words an editor groups calls by (the
// Agent Client Protocol's tool kinds).
type Kind string

const (
	KindRead    Kind = "read"    // reads files
	KindEdit    Kind = "edit"    // creates or changes files
	KindExecute Kind = "execute" // runs commands
	KindSearch  Kind = "search"  // searches files
	KindFetch   Kind = "fetch"   // reaches the network
	KindThink   Kind = "think"   // records the model's plan, touches nothing
	KindOther   Kind = "other"   // anything else, and tools that declare no kind
)

// Kinded is implemented by tools that say what they do. A tool that does
// not is KindOther.
type Kinded interface {
	Kind() Kind
}

// Summarizer is implemented by tools that can name a call the way a user
// reads it ("Read main.go", "Find *.go", the command itself): the title a
// front end shows. "" means the tool's name.
type Summarizer interface {
	Summary(input json.RawMessage) string
}

// TextChange is one change a call makes to a file's text, as a front end
// shows it before or after the call: Old replaced by New in Path, or, with
// Whole, New as the file's whole content.
type TextChange struct {
	Path     string
	Old, New string
	Whole    bool
}

// ChangeDescriber is implemented by tools that write files and can say,
// from the input alone, what text they replace (an editor's diff view).
// Unlike WritePreviewer it reads no file: it is what the call asks for,
// not what it would apply.
type ChangeDescriber interface {
	TextChanges(input json.RawMessage) []TextChange
}

// Unwrapped looks through wrappers (Unwrapper) for the first tool,
// starting with t itself, that implements I.
func Unwrapped[I any](t Tool) (I, bool) {
	for range 16 { // wrappers nest only a few deep
		if t == nil {
			break
		}
		if i, ok := t.(I); ok {
			return i, true
		}
		u, ok := t.(Unwrapper)
		if !ok {
			break
		}
		t = u.Unwrap()
	}
	var zero I
	return zero, false
}

// KindOf is what t, or a tool it wraps, declares it does; KindOther when
// it declares nothing.
func KindOf(t Tool) Kind {
	if k, ok := Unwrapped[Kinded](t); ok {
		return k.Kind()
	}
	return KindOther
}

// SummaryOf is t's summary of a call with input, or "" when t declares
// none.
func SummaryOf(t Tool, input json.RawMessage) string {
	if s, ok := Unwrapped[Summarizer](t); ok {
		return s.Summary(input)
	}
	return ""
}

// TextChangesOf is what t says a call with input changes in files' text;
// nil when t declares nothing.
func TextChangesOf(t Tool, input json.RawMessage) []TextChange {
	if c, ok := Unwrapped[ChangeDescriber](t); ok {
		return c.TextChanges(input)
	}
	return nil
}

// Str is the string field key of input, "" when it is missing or not a
// string: for titles, which show what they can and judge nothing.
func Str(input json.RawMessage, key string) string {
	s, _ := StringField(input, key)
	return s
}

// Interactive is implemented by tools whose call is itself a question to
// the user (ExitPlanMode's plan approval, AskUserQuestion): the permission
// engine asks it in every mode, whatever the rules but a deny, and every
// front end renders it by its kind (permit.Interaction) rather than as a
// yes/no approval.
type Interactive interface {
	Interaction() permit.Interaction
}

// InteractionOf is what t, or a tool it wraps, puts to the user; "" for an
// ordinary tool.
func InteractionOf(t Tool) permit.Interaction {
	if i, ok := Unwrapped[Interactive](t); ok {
		return i.Interaction()
	}
	return ""
}
