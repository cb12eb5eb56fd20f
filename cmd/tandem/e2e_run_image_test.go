package main

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// testPNG is a small PNG whose bytes are unique to the test.
func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 200, G: 10, B: 99, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// `tandem run --image` attaches the file to the prompt, and the image
// reaches the request of every protocol that takes images, in the shape
// that protocol wants.
func TestE2ERunImageReachesProviders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, model string
		api         scripted.API
		shape       func(b64 string) string
	}{
		{"anthropic", "", scripted.APIAnthropic, func(b string) string {
			return `"source":{"data":"` + b + `","media_type":"image/png","type":"base64"}`
		}},
		{"openai chat", "openai/gpt-5", scripted.APIOpenAI, func(b string) string {
			return `"image_url":{"url":"data:image/png;base64,` + b + `"}`
		}},
		{"responses", "openai/gpt-5-pro", scripted.APIResponses, func(b string) string {
			return `"image_url":"data:image/png;base64,` + b + `"`
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "a red dot"}})
			data := testPNG(t)
			x.WriteFile("shot.png", string(data))
			args := []string{"--image", "shot.png"}
			if tc.model != "" {
				args = append(args, "--model", tc.model)
			}
			mustSucceed(t, x.RunStream("what is in the picture?", args...))
			reqs := x.srv.MainRequests()
			if len(reqs) != 1 || reqs[0].API != tc.api {
				t.Fatalf("%d requests, want 1 to %s", len(reqs), tc.api)
			}
			body := string(reqs[0].RawBody)
			if want := tc.shape(base64.StdEncoding.EncodeToString(data)); !strings.Contains(body, want) {
				t.Errorf("request lacks the image as %s:\n%.3000s", want, body)
			}
		})
	}
}

// A file that is not an image, and an image for a model that takes none,
// are refused before anything is sent, naming the fix.
func TestE2ERunImageRefused(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "never"}})
	x.WriteFile("notes.png", "plain text, not a picture")
	r := x.RunStream("look", "--image", "notes.png")
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "attach a PNG, JPEG, GIF or WebP file") {
		t.Errorf("a text file passed as an image: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = x.RunStream("look", "--image", filepath.Join(x.Work, "missing.png"))
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "missing.png") {
		t.Errorf("a missing image: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	x.WriteFile("shot.png", string(testPNG(t)))
	x.Env = append(x.Env, "DEEPSEEK_API_KEY=k", "DEEPSEEK_BASE_URL="+x.url+"/v1")
	r = x.RunStream("look", "--image", "shot.png", "--model", "deepseek/deepseek-chat")
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "does not take images") || !strings.Contains(r.Stdout+r.Stderr, "switch to a model that does") {
		t.Errorf("an image for a text-only model: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if n := len(x.srv.MainRequests()); n != 0 {
		t.Errorf("%d requests reached the model; refusals send nothing", n)
	}
}
