package fs

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadShrinksOversizedImages(t *testing.T) {
	env := newTestEnv(t)
	// Random noise does not compress: ~7.8 MB of PNG, over the byte limit.
	noisy := image.NewRGBA(image.Rect(0, 0, 1400, 1400))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noisy.Pix {
		noisy.Pix[i] = byte(r.IntN(256))
	}
	for i := 3; i < len(noisy.Pix); i += 4 {
		noisy.Pix[i] = 255 // opaque: comes back as JPEG
	}
	big := filepath.Join(env.WorkDir, "noise.png")
	writePNG(t, big, noisy)
	// Small in bytes but wider than providers accept.
	wide := image.NewGray(image.Rect(0, 0, 9000, 40))
	for i := range wide.Pix {
		wide.Pix[i] = uint8(i)
	}
	widePath := filepath.Join(env.WorkDir, "wide.png")
	writePNG(t, widePath, wide)
	// Transparent pixels must survive: PNG out.
	clear := image.NewNRGBA(image.Rect(0, 0, 9000, 10))
	clear.Set(0, 0, color.NRGBA{A: 0})
	clearPath := filepath.Join(env.WorkDir, "clear.png")
	writePNG(t, clearPath, clear)

	for _, c := range []struct {
		path, wantType string
		maxW           int
	}{{big, "image/jpeg", maxImageSide}, {widePath, "image/jpeg", maxImageSide}, {clearPath, "image/png", maxImageSide}} {
		res := run(t, NewRead(), env, map[string]any{"file_path": c.path})
		if res.IsError || len(res.Images) != 1 {
			t.Fatalf("%s: %s", c.path, res.Content)
		}
		if !strings.Contains(res.Content, "downscaled") {
			t.Errorf("%s: the model is not told: %s", c.path, res.Content)
		}
		img := res.Images[0]
		data, _ := base64.StdEncoding.DecodeString(img.ImageData)
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil || img.MediaType != c.wantType || cfg.Width > c.maxW || len(data) > maxImageBytes {
			t.Errorf("%s: %s %dx%d %d bytes (%v)", c.path, img.MediaType, cfg.Width, cfg.Height, len(data), err)
		}
	}
}

func TestFitImageKeepsSmallImages(t *testing.T) {
	var buf bytes.Buffer
	_ = png.Encode(&buf, image.NewGray(image.Rect(0, 0, 10, 10)))
	out, typ, note, err := fitImage(buf.Bytes(), "image/png")
	if err != nil || !bytes.Equal(out, buf.Bytes()) || typ != "image/png" || note != "" {
		t.Fatalf("small image changed: %s %q %v", typ, note, err)
	}
}
