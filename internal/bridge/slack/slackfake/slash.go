package slackfake

import (
	"encoding/json"
	"fmt"
	"net/url"
)

// SlashCommand sends a user's use of a slash command (command "/tandem",
// text what follows it) in channel as a slash_commands envelope, and
// returns it (for posting to the Events API, where it is a form post of
// the same fields).
func (s *Server) SlashCommand(from User, channel, command, text string) Envelope {
	s.mu.Lock()
	trigger := fmt.Sprintf("%d.%d.trig", s.id(), s.id())
	s.mu.Unlock()
	payload, _ := json.Marshal(map[string]string{"token": "verification-token", "team_id": "T0001", "team_domain": "fake",
		"channel_id": channel, "channel_name": "directmessage", "user_id": from.ID, "user_name": from.Name, "command": command,
		"text": text, "api_app_id": "A0001", "is_enterprise_install": "false", "response_url": s.URL + "/commands/" + trigger,
		"trigger_id": trigger})
	return s.queue(Envelope{Type: "slash_commands", Payload: payload})
}

// form is a slash command's payload as the form Slack posts.
func form(payload []byte) string {
	var fields map[string]string
	_ = json.Unmarshal(payload, &fields)
	v := url.Values{}
	for k, x := range fields {
		v.Set(k, x)
	}
	return v.Encode()
}

// Responses returns the payloads the app acknowledged slash command
// envelopes with over Socket Mode ("null" for none), in order.
func (s *Server) Responses() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.acked {
		if e.Type == "slash_commands" {
			out = append(out, string(e.response))
		}
	}
	return out
}
