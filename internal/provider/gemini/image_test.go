package gemini

import (
	"context"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

// An image the user attached to a prompt (tandem run --image, an API
// image part) reaches Gemini as inlineData in the user's content, beside
// the prompt's text.
func TestGeminiUserImageSent(t *testing.T) {
	rs := providertest.NewReplayServer(t, providertest.LoadCassette(t, "TestGoogleCommon/gemini-2.5-flash/tool_streaming.yaml"), nil)
	p := geminiFor(t, rs)
	req := provider.Request{Model: "gemini-2.5-flash", MaxTokens: 4000, Tools: []provider.ToolSpec{providertest.WeatherTool},
		Messages: []message.Message{{Role: message.User, Content: []message.Block{
			message.TextBlock("What is in this picture?"),
			{Type: message.Image, MediaType: "image/png", ImageData: "iVBORw0KGgo="},
		}}}}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	sent := string(rs.Body(0))
	if !strings.Contains(sent, `"inlineData":{"data":"iVBORw0KGgo=","mimeType":"image/png"}`) || !strings.Contains(sent, "What is in this picture?") {
		t.Errorf("request lacks the user's image as inlineData:\n%s", sent)
	}
}
