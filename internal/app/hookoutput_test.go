package app

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/provider"
)

// updatedToolOutput in its three shapes becomes the text the model reads.
func TestToolOutputText(t *testing.T) {
	for raw, want := range map[string]string{`"clean"`: "clean", `{"output":"kept"}`: "kept", `{"n":1}`: `{"n":1}`, `[1,2]`: `[1,2]`} {
		if got := toolOutputText(json.RawMessage(raw)); got == nil || *got != want {
			t.Errorf("%s: %v, want %q", raw, got, want)
		}
	}
	if toolOutputText(nil) != nil || toolOutputText(json.RawMessage("null")) != nil {
		t.Error("no updatedToolOutput must keep the result")
	}
}

// A failed model call is named as Claude Code's StopFailure names it.
func TestFailureKind(t *testing.T) {
	cases := map[error]string{
		&provider.Error{Status: 401, Auth: true}: hooks.FailAuthentication,
		&provider.Error{Status: 429}:             hooks.FailRateLimit,
		&provider.Error{Status: 529}:             hooks.FailOverloaded,
		&provider.Error{Status: 400}:             hooks.FailInvalidRequest,
		&provider.Error{Status: 404}:             hooks.FailModelNotFound,
		&provider.Error{Status: 503}:             hooks.FailServer,
		errors.New("connection reset"):           hooks.FailUnknown,
	}
	for err, want := range cases {
		if got := failureKind(err); got != want {
			t.Errorf("%v: %s, want %s", err, got, want)
		}
	}
}
