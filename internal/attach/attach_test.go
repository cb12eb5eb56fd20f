package attach

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func pngBytes(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.png")
	os.WriteFile(good, pngBytes(t), 0o600)
	b, err := File(good)
	if err != nil || b.MediaType != "image/png" || b.ImageData == "" {
		t.Fatalf("File(png) = %+v, %v", b, err)
	}

	text := filepath.Join(dir, "notes.png")
	os.WriteFile(text, []byte("just text"), 0o600)
	if _, err := File(text); err == nil || !strings.Contains(err.Error(), "PNG, JPEG, GIF or WebP") {
		t.Fatalf("a text file named .png: %v", err)
	}

	big := filepath.Join(dir, "big.png")
	os.WriteFile(big, append(pngBytes(t), make([]byte, MaxBytes)...), 0o600)
	if _, err := File(big); err == nil || !strings.Contains(err.Error(), "smaller copy") {
		t.Fatalf("an image over the bound: %v", err)
	}

	fifo := filepath.Join(dir, "fifo.png")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil { // must not block
		if _, err := File(fifo); err == nil {
			t.Fatal("a FIFO was read as an image")
		}
	}
}

func TestBase64(t *testing.T) {
	data := base64.StdEncoding.EncodeToString(pngBytes(t))
	for _, tc := range []struct{ mt, data, want string }{
		{"image/png", data, ""},
		{"", data, ""},
		{"", "data:image/png;base64," + data, ""},
		{"image/jpeg", data, "its bytes are image/png"},
		{"image/png", "!!!", "not valid base64"},
		{"", base64.StdEncoding.EncodeToString([]byte("hello")), "PNG, JPEG"},
		{"", "data:image/png,abc", "not base64"},
	} {
		b, err := Base64(tc.mt, tc.data)
		if tc.want == "" {
			if err != nil || b.MediaType != "image/png" {
				t.Errorf("Base64(%q, …) = %+v, %v", tc.mt, b.MediaType, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Base64(%q, %.20q) error %v, want %q", tc.mt, tc.data, err, tc.want)
		}
	}
}
