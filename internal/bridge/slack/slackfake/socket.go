package slackfake

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// DropAndRedeliver drops the Socket Mode connection as if the network
// failed before the last n acknowledgements reached Slack: those
// envelopes are delivered again on the next connection (retry_attempt 1).
func (s *Server) DropAndRedeliver(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n = min(n, len(s.acked))
	again := s.acked[len(s.acked)-n:]
	s.acked = s.acked[:len(s.acked)-n]
	for _, e := range again {
		s.pending = append(s.pending, &envelope{Envelope: e.Envelope, id: fmt.Sprintf("env-%d", s.id()), retry: e.retry + 1})
	}
	s.dropLocked()
	s.touch()
}

func (s *Server) dropLocked() {
	select {
	case <-s.drop:
	default:
		close(s.drop)
	}
}

// Disconnect sends Slack's disconnect message on the current connection
// (reason "refresh_requested", "warning", "link_disabled"), as Slack does
// before it closes a connection it is refreshing.
func (s *Server) Disconnect(reason string) {
	msg, _ := json.Marshal(map[string]any{"type": "disconnect", "reason": reason,
		"debug_info": map[string]any{"host": "applink-fake"}})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.controls = append(s.controls, msg)
	s.touch()
}

// socket serves a Socket Mode connection: hello, then every envelope not
// yet acknowledged, pings every few seconds, acks read back.
func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: []string{"api.slack.com"}})
	if err != nil {
		return
	}
	defer c.CloseNow()
	s.mu.Lock()
	s.connections++
	select {
	case <-s.drop:
		s.drop = make(chan struct{})
	default:
	}
	drop := s.drop
	s.touch()
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	hello, _ := json.Marshal(map[string]any{"type": "hello", "num_connections": 1,
		"debug_info":      map[string]any{"host": "applink-fake", "build_number": 1, "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": "A0001"}})
	if c.Write(ctx, websocket.MessageText, hello) != nil {
		return
	}
	// Acks.
	go func() {
		defer cancel()
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			var ack struct {
				EnvelopeID string          `json:"envelope_id"`
				Payload    json.RawMessage `json:"payload"`
			}
			if json.Unmarshal(data, &ack) != nil {
				continue
			}
			s.mu.Lock()
			for i, e := range s.pending {
				if e.id == ack.EnvelopeID {
					e.response = ack.Payload
					s.acked = append(s.acked, e)
					s.pending = append(s.pending[:i], s.pending[i+1:]...)
					break
				}
			}
			s.touch()
			s.mu.Unlock()
		}
	}()
	ping := time.NewTicker(5 * time.Second)
	defer ping.Stop()
	sent := map[string]bool{}
	for {
		s.mu.Lock()
		var out []*envelope
		for _, e := range s.pending {
			if !sent[e.id] {
				out = append(out, e)
				sent[e.id] = true
			}
		}
		controls := s.controls
		s.controls = nil
		ch := s.changed.Next()
		s.mu.Unlock()
		for _, c2 := range controls {
			if c.Write(ctx, websocket.MessageText, c2) != nil {
				return
			}
		}
		for _, e := range out {
			retryReason := ""
			if e.retry > 0 {
				retryReason = "timeout"
			}
			data, _ := json.Marshal(map[string]any{"envelope_id": e.id, "type": e.Type, "payload": e.Payload,
				"accepts_response_payload": e.Type == "slash_commands", "retry_attempt": e.retry, "retry_reason": retryReason})
			if c.Write(ctx, websocket.MessageText, data) != nil {
				return
			}
		}
		select {
		case <-ch:
		case <-ping.C:
			_ = c.Ping(ctx)
		case <-drop:
			return // abrupt, as a network failure is
		case <-ctx.Done():
			return
		}
	}
}
