package store

import "time"

// File states recorded in a checkpoint.
const (
	FileSaved    = "saved"     // the prior content is in the blob store under Hash
	FileAbsent   = "absent"    // the file did not exist before the prompt
	FileTooLarge = "too_large" // larger than the size limit: named, not restorable
)

// Checkpoint is the state before one prompt: where the conversation stood
// and what the files the prompt's turn changed were before it.
type Checkpoint struct {
	SessionID string
	Number    int   // 1 = the first prompt of the conversation
	Position  int64 // the message position the prompt took
	Prompt    string
	CreatedAt time.Time
	Resume    string // runtime resume facts (JSON), see internal/checkpoint
	Files     []CheckpointFile
}

// CheckpointFile is one file's prior state.
type CheckpointFile struct {
	Path  string
	State string
	Hash  string
	Mode  uint32
}

// UserScope is the Grant scope that applies in every project.
const UserScope = "user"

// Grant is a saved "allow always" (or "deny always") rule.
type Grant struct {
	ID        string
	Scope     string // a project path, or UserScope
	Tool      string
	Pattern   string // tool-specific, e.g. "git status:*"; empty: any call
	Action    string // e.g. "allow", "deny"
	CreatedAt time.Time
}

// Workspace is a folder users allow agents to run in (tandem serve).
type Workspace struct {
	ID        string
	Path      string // absolute and clean
	Name      string // the folder's base name
	CreatedAt time.Time
}
