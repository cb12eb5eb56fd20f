package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxToolName is the longest tool name providers accept (Anthropic and
// OpenAI both stop at 64).
const maxToolName = 64

// SanitizeName replaces every character outside [a-zA-Z0-9_-] with '_'.
func SanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ToolName is the name the model sees for a server's tool:
// mcp__<server>__<tool>, sanitised, and shortened to 64 characters with a
// hash suffix so two long names stay distinct.
func ToolName(server, tool string) string {
	n := "mcp__" + SanitizeName(server) + "__" + SanitizeName(tool)
	if len(n) <= maxToolName {
		return n
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:])[:8]
	return n[:maxToolName-len(suffix)] + suffix
}
