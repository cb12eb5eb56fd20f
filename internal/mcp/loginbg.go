package mcp

import (
	"context"
	"fmt"
	"time"
)

// loginURLWait bounds how long StartLogin waits for the authorization URL
// (discovery and registration come first).
const loginURLWait = 30 * time.Second

// StartLogin begins the sign-in of server name for a front end (the
// terminal UI's /mcp, the web UI's MCP panel): the browser step runs in
// the background and the server's status carries the authorization URL
// (AuthURL) until it ends; then the server reconnects, or shows
// needs-auth with the reason. It returns the URL once known ("" if the
// sign-in ended first, for instance because no sign-in was needed).
func (m *Manager) StartLogin(name string) (string, error) {
	s, err := m.get(name)
	if err != nil {
		return "", err
	}
	if m.opts.Tokens == nil {
		return "", fmt.Errorf("mcp server %s: this session keeps no sign-ins", name)
	}
	s.mu.Lock()
	if s.loginDone != nil {
		u := s.authURL
		s.mu.Unlock()
		return u, nil // one sign-in at a time
	}
	done, known := make(chan struct{}), make(chan struct{}, 1)
	s.loginDone = done
	s.mu.Unlock()
	open := func(u string) {
		s.mu.Lock()
		s.authURL = u
		s.mu.Unlock()
		m.emit(s.status(), fmt.Sprintf("mcp server %s: open %s to sign in", name, u))
		select {
		case known <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(m.ctx, LoginTimeout)
		defer cancel()
		err := Login(ctx, name, s.config(), LoginOptions{Store: m.opts.Tokens, Open: open,
			ClientName: m.opts.ClientName, ClientVersion: m.opts.ClientVersion, LookupEnv: m.lookup})
		s.mu.Lock()
		s.authURL, s.loginDone = "", nil
		s.mu.Unlock()
		if err != nil {
			s.setState(StateNeedsAuth, fmt.Sprintf("sign-in failed: %v; try again with `tandem mcp login %s` or from /mcp", err, name))
			return
		}
		if err := m.Reconnect(name); err != nil {
			m.logf("mcp server %s: reconnect after sign-in: %v", name, err)
		}
	}()
	t := time.NewTimer(loginURLWait)
	defer t.Stop()
	select {
	case <-known:
	case <-done:
	case <-t.C:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authURL, nil
}
