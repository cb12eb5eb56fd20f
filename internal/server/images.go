package server

import (
	"net/http"

	"github.com/tandem-agent/tandem/internal/attach"
	"github.com/tandem-agent/tandem/internal/message"
)

// maxMessageBody bounds a message body, which alone may carry images:
// room for several images at attach.MaxBytes, base64-encoded.
const maxMessageBody = 32 << 20

// imagePart is an image attached to a message: base64 data (or a data:
// URL, as a browser reads a dropped file) and, optionally, its media type.
type imagePart struct {
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data"`
}

// imageBlocks checks the message's image parts (attach.Base64: type,
// size, encoding) and turns them into the prompt's image blocks. The room
// the body has is for images: the rest of it stays within textLimit, the
// bound of every other body.
func imageBlocks(req messageReq, textLimit int64) ([]message.Block, *apiError) {
	parts := req.Images
	if int64(len(req.Text)+len(req.AppendSystemPrompt)+len(req.JSONSchema)) > textLimit {
		return nil, errf(http.StatusRequestEntityTooLarge, "body_too_large", "the message's text is larger than %d bytes (only images may make a message body larger)", textLimit)
	}
	if len(parts) > attach.MaxImages {
		return nil, errf(http.StatusBadRequest, "too_many_images", "%d images: attach at most %d to one message", len(parts), attach.MaxImages)
	}
	var out []message.Block
	for i, p := range parts {
		b, err := attach.Base64(p.MediaType, p.Data)
		if err != nil {
			return nil, errf(http.StatusBadRequest, "bad_image", "images[%d]: %v", i, err)
		}
		out = append(out, b)
	}
	return out, nil
}
