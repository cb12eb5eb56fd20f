package tool

// Availability is implemented by tools that cannot work in every session
// or with every model (WebSearch without a search backend, a language
// server tool without a server). The loop leaves a tool out of the request
// while Unavailable returns a reason, so the model is never offered a tool
// that can only fail; the reason is what `tandem prompt show` prints.
type Availability interface {
	// Unavailable returns why the tool cannot work for a turn with model
	// ("provider/model"), or "" when it can.
	Unavailable(model string) string
}

// UnavailableReason is t's reason for not being offered with model, or "".
func UnavailableReason(t Tool, model string) string {
	if a, ok := t.(Availability); ok {
		return a.Unavailable(model)
	}
	return ""
}

// IsReadOnly reports whether t declares that it changes nothing.
func IsReadOnly(t Tool) bool {
	ro, ok := t.(ReadOnly)
	return ok && ro.ReadOnly()
}
