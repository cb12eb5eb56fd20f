package trust

import (
	"fmt"
	"strings"
)

// Finding is one setting in a project file that only a trusted folder may
// use.
type Finding struct {
	File string `json:"file"`
	Key  string `json:"key"`
	// Why says what the setting could do, in a few words.
	Why string `json:"why"`
}

func (f Finding) String() string { return fmt.Sprintf("%s: %q %s", f.File, f.Key, f.Why) }

// UntrustedError refuses a session in an untrusted folder whose project
// files need trust. Entry points show it as is (CLI) or as a 403 with the
// findings (HTTP), so the user can trust the folder and retry.
type UntrustedError struct {
	Dir      string    `json:"dir"`
	Findings []Finding `json:"findings"`
}

func (e *UntrustedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the folder %s is not trusted, and its project files set what only a trusted folder may:", e.Dir)
	for _, f := range e.Findings {
		b.WriteString("\n  ")
		b.WriteString(f.String())
	}
	fmt.Fprintf(&b, "\nIf you trust this folder's files, run `tandem trust %s` (or pass --trust-project for this run); otherwise remove these settings.", e.Dir)
	return b.String()
}

// Status is a folder's trust as the API reports it.
type Status struct {
	Dir     string `json:"dir"`
	Trusted bool   `json:"trusted"`
	// TrustedBy is the trusted folder that covers Dir (itself or a parent).
	TrustedBy string `json:"trusted_by,omitempty"`
	// NeedsTrust lists the project settings that only a trusted folder
	// may use (empty: the folder works untrusted).
	NeedsTrust []Finding `json:"needs_trust"`
}

// NoticeKind is the "notice" meta of the status event that carries a
// Notice (with "dir" and "left_out", the findings), for front ends to show.
const NoticeKind = "untrusted"

// Notice says what a session in the untrusted folder dir runs without,
// naming each file and key and the command that trusts the folder: what
// every front end shows once when such a session starts.
func Notice(dir string, leftOut []Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the folder %s is not trusted, so this session runs without these project settings:", dir)
	for _, f := range leftOut {
		b.WriteString("\n  ")
		b.WriteString(f.String())
	}
	fmt.Fprintf(&b, "\nEverything else in the project's files applies. To use these too, run `tandem trust %s` (or pass --trust-project for one run).", dir)
	return b.String()
}
