package main

import (
	"fmt"

	"github.com/tandem-agent/tandem/internal/attach"
	"github.com/tandem-agent/tandem/internal/message"
)

// readImages reads the files of `tandem run --image`, before any session
// is opened, so a bad file stores nothing.
func readImages(paths []string) ([]message.Block, error) {
	if len(paths) > attach.MaxImages {
		return nil, fmt.Errorf("--image given %d times: attach at most %d images to one prompt", len(paths), attach.MaxImages)
	}
	var out []message.Block
	for _, p := range paths {
		b, err := attach.File(p)
		if err != nil {
			return nil, fmt.Errorf("--image: %w", err)
		}
		out = append(out, b)
	}
	return out, nil
}
