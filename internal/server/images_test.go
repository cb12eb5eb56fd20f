package server_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// An image part of a message body reaches the model's request; a part that
// is not an image is refused with 400 and nothing runs.
func TestMessageImages(t *testing.T) {
	model, url := testfiles.Scripted(t, scripted.Script{Fallback: &scripted.Step{Text: "a square"}}) // recording, unlike the stack's own
	e := newEnv(t, scripted.Script{}, func(_ *server.Options, c *servertest.Config) { c.ModelURL = url })
	id := e.newSession()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 5, 4))); err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(buf.Bytes())

	code, body := e.do("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "what is it?",
		"images": []map[string]string{{"media_type": "image/png", "data": base64.StdEncoding.EncodeToString([]byte("no picture"))}}})
	if code != 400 || errCode(t, body) != "bad_image" || !strings.Contains(string(body), "PNG, JPEG, GIF or WebP") {
		t.Fatalf("a part that is not an image: %d %s", code, body)
	}

	ch, cancel := e.stream(id, "")
	defer cancel()
	e.mustDo("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "what is it?",
		"images": []map[string]string{{"data": "data:image/png;base64," + b64}}}, 202, nil)
	for _, ev := range until(t, ch, isType(event.Done)) {
		if ev.Event.Type == event.Result && ev.Event.IsError {
			t.Fatalf("turn failed: %+v", ev.Event)
		}
	}
	reqs := model.MainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	if !strings.Contains(string(reqs[0].RawBody), `"data":"`+b64+`","media_type":"image/png"`) {
		t.Errorf("the request lacks the image:\n%.2000s", reqs[0].RawBody)
	}
}
