package fs

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decode WebP for downscaling
)

const (
	// maxImageSide is the longest edge a downscaled image gets: providers
	// scale larger images down to about this anyway, so more pixels only
	// cost tokens and bytes.
	maxImageSide = 1568
	// maxImageDimension is the largest edge providers accept at all.
	maxImageDimension = 8000
	// maxImageInput bounds the files Read will try to decode and shrink.
	maxImageInput = 64 << 20
)

// fitImage returns the image as it should be sent: unchanged when it is
// within the providers' limits, else scaled down (longer edge
// maxImageSide, smaller again until it fits maxImageBytes) and re-encoded
// as PNG when it has transparency, JPEG otherwise. The note says what was
// done, for the model.
func fitImage(data []byte, mediaType string) (out []byte, outType string, note string, err error) {
	cfg, _, cfgErr := image.DecodeConfig(bytes.NewReader(data))
	if len(data) <= maxImageBytes && (cfgErr != nil || (cfg.Width <= maxImageDimension && cfg.Height <= maxImageDimension)) {
		return data, mediaType, "", nil
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, "", "", fmt.Errorf("decode image to shrink it: %w", err)
	}
	b := img.Bounds()
	side := maxImageSide
	for attempt := 0; attempt < 6; attempt++ {
		w, h := scaled(b.Dx(), b.Dy(), side)
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Over, nil)
		var buf bytes.Buffer
		outType = "image/jpeg"
		if hasAlpha(img) {
			outType = "image/png"
			err = png.Encode(&buf, dst)
		} else {
			err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
		}
		if err != nil {
			return nil, "", "", fmt.Errorf("encode the shrunk image: %w", err)
		}
		if buf.Len() <= maxImageBytes {
			note = fmt.Sprintf("downscaled from %dx%d to %dx%d (%s) to fit the model's image limits", b.Dx(), b.Dy(), w, h, humanSize(int64(buf.Len())))
			return buf.Bytes(), outType, note, nil
		}
		side = side * 3 / 4
	}
	return nil, "", "", fmt.Errorf("the image stays over %s even when shrunk", humanSize(maxImageBytes))
}

// scaled fits w×h into side×side, keeping the aspect ratio and never
// enlarging.
func scaled(w, h, side int) (int, int) {
	if w <= side && h <= side {
		return w, h
	}
	if w >= h {
		return side, max(1, h*side/w)
	}
	return max(1, w*side/h), side
}

// hasAlpha reports whether the image may have transparent pixels.
func hasAlpha(img image.Image) bool {
	switch m := img.(type) {
	case *image.YCbCr, *image.Gray, *image.Gray16, *image.CMYK:
		return false
	case interface{ Opaque() bool }:
		return !m.Opaque()
	}
	return true
}
