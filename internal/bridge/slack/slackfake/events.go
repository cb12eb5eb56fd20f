package slackfake

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Post sends env to an Events API endpoint as Slack does: events as JSON,
// interactions as a form with payload=, slash commands as a form of
// their fields, signed with secret (v0 HMAC-SHA256
// of "v0:timestamp:body"). It returns the status and body of the answer.
func (s *Server) Post(ctx context.Context, endpoint, secret string, env Envelope) (int, string, error) {
	body, ct := []byte(env.Payload), "application/json"
	switch env.Type {
	case "interactive":
		body, ct = []byte(url.Values{"payload": {string(env.Payload)}}.Encode()), "application/x-www-form-urlencoded"
	case "slash_commands":
		body, ct = []byte(form(env.Payload)), "application/x-www-form-urlencoded"
	}
	return PostSigned(ctx, endpoint, secret, ct, body)
}

// PostSigned posts body signed with secret, as Slack signs requests.
func PostSigned(ctx context.Context, endpoint, secret, contentType string, body []byte) (int, string, error) {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	_, _ = mac.Write([]byte("v0:" + ts + ":"))
	_, _ = mac.Write(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}
