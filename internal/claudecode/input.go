package claudecode

import (
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/turn"
)

// userMessage is the stdin line carrying the prompt (and images) in the
// shape the SDKs write.
func userMessage(in turn.Input) map[string]any {
	var content any = in.Prompt
	if len(in.Images) > 0 {
		var blocks []map[string]any
		for _, img := range in.Images {
			if img.Type != message.Image {
				continue
			}
			blocks = append(blocks, map[string]any{
				"type":   "image",
				"source": map[string]any{"type": "base64", "media_type": img.MediaType, "data": img.ImageData},
			})
		}
		blocks = append(blocks, map[string]any{"type": "text", "text": in.Prompt})
		content = blocks
	}
	return map[string]any{
		"type":               "user",
		"message":            map[string]any{"role": "user", "content": content},
		"parent_tool_use_id": nil,
		"session_id":         "",
	}
}
