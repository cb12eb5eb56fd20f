// Package attach turns the images a user attaches to a prompt (a file named
// with `tandem run --image` or `@file` in the terminal UI, an image part of
// the HTTP API's message body, a picture dropped on the web page) into
// message image blocks, checked once here for type and size so every way in
// refuses the same things with the same words.
package attach

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/regular"
)

// MaxBytes bounds one attached image so its base64 form stays under the
// 5 MB per-image limit providers apply (the Read tool's bound too).
const MaxBytes = 3750 << 10

// MaxImages bounds the images of one prompt (Anthropic takes up to 100 per
// request; a prompt needs far fewer).
const MaxImages = 20

// types are the image formats every provider that takes images accepts.
var types = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Types lists the accepted media types, for messages and the API spec.
func Types() []string { return append([]string(nil), types...) }

// imageExts are the file name endings the terminal UI treats as an image
// to attach rather than a file to mention.
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}

// LooksLikeImage reports whether a path's name says it is an image.
func LooksLikeImage(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range imageExts {
		if ext == e {
			return true
		}
	}
	return false
}

// File reads the image at path through the bounded regular-file reader
// (never blocking on a FIFO or device) and returns it as an image block.
func File(path string) (message.Block, error) {
	data, err := regular.ReadFileReusing(path, nil, MaxBytes)
	if errors.Is(err, regular.ErrTooLarge) {
		return message.Block{}, fmt.Errorf("image %s is larger than %d KiB: attach a smaller copy (e.g. `convert %s -resize 50%% smaller.png`)", path, MaxBytes>>10, path)
	}
	if err != nil {
		return message.Block{}, fmt.Errorf("image %s: %w", path, err)
	}
	b, err := Bytes(data)
	if err != nil {
		return message.Block{}, fmt.Errorf("image %s: %w", path, err)
	}
	return b, nil
}

// Bytes checks an image's bytes (already bounded by MaxBytes: a file,
// a pasted clipboard) and returns them as an image block.
func Bytes(data []byte) (message.Block, error) {
	mt, err := sniff(data)
	if err != nil {
		return message.Block{}, err
	}
	return message.Block{Type: message.Image, MediaType: mt, ImageData: base64.StdEncoding.EncodeToString(data)}, nil
}

// Base64 checks an image given as base64 data with the media type its
// sender claims (an API part, a pasted picture): the data must decode, fit
// MaxBytes and be the claimed type ("" takes what the bytes are).
func Base64(mediaType, data string) (message.Block, error) {
	// A data: URL is what browsers hand a page; take its payload.
	if rest, ok := strings.CutPrefix(data, "data:"); ok {
		head, payload, found := strings.Cut(rest, ",")
		if !found || !strings.HasSuffix(head, ";base64") {
			return message.Block{}, errors.New("image data URL is not base64: send data:<type>;base64,<data> or the base64 alone")
		}
		if mediaType == "" {
			mediaType = strings.TrimSuffix(head, ";base64")
		}
		data = payload
	}
	if base64.StdEncoding.DecodedLen(len(data)) > MaxBytes+3 {
		return message.Block{}, fmt.Errorf("image is larger than %d KiB: attach a smaller copy", MaxBytes>>10)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return message.Block{}, fmt.Errorf("image data is not valid base64 (%v): send the file's bytes base64-encoded with padding", err)
	}
	if len(raw) > MaxBytes {
		return message.Block{}, fmt.Errorf("image is larger than %d KiB: attach a smaller copy", MaxBytes>>10)
	}
	mt, err := sniff(raw)
	if err != nil {
		return message.Block{}, err
	}
	if mediaType != "" && !strings.EqualFold(mediaType, mt) {
		return message.Block{}, fmt.Errorf("image says it is %s but its bytes are %s: send the right media_type or leave it out", mediaType, mt)
	}
	return message.Block{Type: message.Image, MediaType: mt, ImageData: base64.StdEncoding.EncodeToString(raw)}, nil
}

// sniff names the image type of data from its first bytes, refusing what
// no provider takes.
func sniff(data []byte) (string, error) {
	mt := http.DetectContentType(data)
	for _, t := range types {
		if mt == t {
			return mt, nil
		}
	}
	return "", fmt.Errorf("not an image tandem can send (its bytes look like %s): attach a PNG, JPEG, GIF or WebP file", mt)
}
