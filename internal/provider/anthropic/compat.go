package anthropic

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

// ClaudeCodeVersion is the Claude Code release whose request shape the
// claude-code-compat transport copies (the CLI pinned in testdeps, recorded
// in testdata/claude-code-2.1.332-request.json). Raise it only with a new
// recording.
const ClaudeCodeVersion = "2.1.332"

// claudeCodePreamble is the system block Claude Code sends first in
// interactive use; proxies that accept only Claude Code look for it.
const claudeCodePreamble = "You are Claude Code, Anthropic's official CLI for Claude."

// claudeCodeBetas are the beta flags of the recorded request, in its order.
var claudeCodeBetas = []string{
	"claude-code-20250219",
	"interleaved-thinking-2025-05-14",
	"context-management-2025-06-27",
	"thinking-token-count-2026-05-13",
	"advanced-tool-use-2025-11-20",
	"thinking-display-updates-2026-08-18",
}

// fingerprintSalt is the constant Claude Code hashes into the cc_version
// of its billing block, with three characters of the first prompt.
const fingerprintSalt = "59cf53e54c78"

// compatShape is the per-adapter state of the claude-code-compat transport.
type compatShape struct {
	deviceID  string // 64 hex digits, as Claude Code's userID
	sessionID string // a UUID per adapter, as Claude Code's per process
}

func newCompatShape(cfg provider.Config) *compatShape {
	if !cfg.ClaudeCodeCompat() {
		return nil
	}
	// The device id is a hash of the install's random id, so it is stable
	// per install and says nothing about the id itself or any key.
	sum := sha256.Sum256([]byte("tandem-claude-code-compat:" + cfg.InstallID))
	if cfg.InstallID == "" {
		var b [32]byte
		_, _ = rand.Read(b[:])
		sum = sha256.Sum256(b[:])
	}
	return &compatShape{deviceID: hex.EncodeToString(sum[:]), sessionID: newUUID()}
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// headers are Claude Code's request headers. anthropic-beta joins the
// request's own flags (web search, ...) after Claude Code's.
func (c *compatShape) headers(requestBeta string) map[string]string {
	betas := append([]string(nil), claudeCodeBetas...)
	for _, b := range strings.Split(requestBeta, ",") {
		if b = strings.TrimSpace(b); b != "" && !containsString(betas, b) {
			betas = append(betas, b)
		}
	}
	return map[string]string{
		"User-Agent": "claude-cli/" + ClaudeCodeVersion + " (external, cli)",
		"X-App":      "cli",
		// The SDK sends its own newer date; Claude Code's SDK sends this.
		"Anthropic-Version":                         "2023-06-01",
		"Anthropic-Beta":                            strings.Join(betas, ","),
		"Anthropic-Dangerous-Direct-Browser-Access": "true",
		"X-Claude-Code-Session-Id":                  c.sessionID,
		// The SDK would describe itself (Go); Claude Code's are its
		// Node SDK's.
		"X-Stainless-Lang":            "js",
		"X-Stainless-Package-Version": "0.128.0",
		"X-Stainless-Os":              stainlessOS(),
		"X-Stainless-Arch":            stainlessArch(),
		"X-Stainless-Runtime":         "node",
		"X-Stainless-Runtime-Version": "v26.12.1",
		"X-Stainless-Timeout":         "600",
	}
}

// requestOptions are the headers and the ?beta=true query Claude Code
// sends on every Messages call.
func (c *compatShape) requestOptions(requestBeta string) []option.RequestOption {
	opts := []option.RequestOption{option.WithQuery("beta", "true")}
	for k, v := range c.headers(requestBeta) {
		opts = append(opts, option.WithHeader(k, v))
	}
	return opts
}

// shape puts Claude Code's system blocks before tandem's and its
// metadata.user_id on the request.
func (c *compatShape) shape(p *anthropic.MessageNewParams, msgs []message.Message) {
	lead := []anthropic.TextBlockParam{
		{Text: billingBlock(firstUserText(msgs))},
		{Text: claudeCodePreamble, CacheControl: anthropic.NewCacheControlEphemeralParam()},
	}
	p.System = append(lead, p.System...)
	p.Metadata = anthropic.MetadataParam{UserID: param.NewOpt(c.userID())}
}

// userID is metadata.user_id as Claude Code 2.x writes it: a JSON object
// encoded as a string.
func (c *compatShape) userID() string {
	b, _ := json.Marshal(struct {
		DeviceID    string `json:"device_id"`
		AccountUUID string `json:"account_uuid"`
		SessionID   string `json:"session_id"`
	}{c.deviceID, "", c.sessionID})
	return string(b)
}

// billingBlock is the attribution line Claude Code sends as its first
// system block: its version with a three-digit fingerprint of the prompt.
func billingBlock(firstText string) string {
	return fmt.Sprintf("x-anthropic-billing-header: cc_version=%s.%s; cc_entrypoint=cli;",
		ClaudeCodeVersion, fingerprint(firstText))
}

// fingerprint is sha256(salt + characters 4, 7 and 20 of the prompt, "0"
// for each missing one, + version), first three hex digits.
func fingerprint(text string) string {
	var pick strings.Builder
	for _, i := range []int{4, 7, 20} {
		if i < len(text) {
			pick.WriteByte(text[i])
		} else {
			pick.WriteByte('0')
		}
	}
	sum := sha256.Sum256([]byte(fingerprintSalt + pick.String() + ClaudeCodeVersion))
	return hex.EncodeToString(sum[:])[:3]
}

// firstUserText is the first text of the first user message.
func firstUserText(msgs []message.Message) string {
	for _, m := range msgs {
		if m.Role != message.User {
			continue
		}
		for _, b := range m.Content {
			if b.Type == message.Text {
				return b.Text
			}
		}
		return ""
	}
	return ""
}

func stainlessOS() string {
	switch runtime.GOOS {
	case "darwin":
		return "MacOS"
	case "windows":
		return "Windows"
	case "linux":
		return "Linux"
	}
	return "Other:" + runtime.GOOS
}

func stainlessArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x64"
	case "arm64":
		return "arm64"
	case "386":
		return "x32"
	}
	return "other:" + runtime.GOARCH
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
