package fs

import (
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/tool"
)

// FileAccess declares the file Read reads (tool.FileAccessor).
func (*Read) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return tool.PathField("file_path", false).FileAccess(input)
}

// FileAccess declares the file Write writes.
func (*Write) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return tool.PathField("file_path", true).FileAccess(input)
}

// FileAccess declares the file Edit changes.
func (*Edit) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return tool.PathField("file_path", true).FileAccess(input)
}

// FileAccess declares the file MultiEdit changes.
func (*MultiEdit) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return tool.PathField("file_path", true).FileAccess(input)
}
