package app

import (
	"errors"
	"fmt"

	"github.com/tandem-agent/tandem/internal/permission"
)

// registerBroker makes a session's pending questions answerable through
// App.Reply (the server's POST /api/permissions/{id}).
func (a *App) registerBroker(sessionID string, b *permission.Broker) {
	a.brokerMu.Lock()
	defer a.brokerMu.Unlock()
	if a.brokers == nil {
		a.brokers = map[string]*permission.Broker{}
	}
	a.brokers[sessionID] = b
}

func (a *App) unregisterBroker(sessionID string) {
	a.brokerMu.Lock()
	defer a.brokerMu.Unlock()
	delete(a.brokers, sessionID)
}

// Reply answers a pending permission request of any open session.
func (a *App) Reply(requestID string, ans permission.Answer) error {
	a.brokerMu.Lock()
	bs := make([]*permission.Broker, 0, len(a.brokers))
	for _, b := range a.brokers {
		bs = append(bs, b)
	}
	a.brokerMu.Unlock()
	for _, b := range bs {
		err := b.Reply(requestID, ans)
		if errors.Is(err, permission.ErrUnknownRequest) {
			continue
		}
		return err
	}
	return fmt.Errorf("reply to %s: %w", requestID, permission.ErrUnknownRequest)
}

// Pending lists the open questions of every session.
func (a *App) Pending() []permission.Question {
	a.brokerMu.Lock()
	defer a.brokerMu.Unlock()
	var out []permission.Question
	for _, b := range a.brokers {
		out = append(out, b.Pending()...)
	}
	return out
}
