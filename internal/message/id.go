package message

import (
	"strings"

	"github.com/google/uuid"
)

// NewID returns a new message id: "msg_" and 32 hex digits of a UUIDv7, so
// ids sort by creation time.
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return "msg_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	}
	return "msg_" + strings.ReplaceAll(id.String(), "-", "")
}
