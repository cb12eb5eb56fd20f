package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/accounts"
)

// csrfHeader carries a signed-in page's CSRF token on every state change.
const csrfHeader = "X-CSRF-Token"

// webSessionPrefix marks a browser sign-in's id in the cookie.
const webSessionPrefix = "tws_"

// webSessionTTL is how long a browser sign-in lasts without a new one.
const webSessionTTL = 12 * time.Hour

// webSessions are the browser sign-ins (OpenID Connect) of this server:
// the cookie holds only a random id, so signing out ends the sign-in here
// and a copied cookie stops working with it. They live in memory: a
// restarted server asks its users to sign in again.
type webSessions struct {
	mu   sync.Mutex
	byID map[string]webSession
	now  func() time.Time
}

type webSession struct {
	user    accounts.User
	csrf    string
	expires time.Time
}

func randomID(prefix string) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// start signs u in and returns the session id and its CSRF token.
func (ws *webSessions) start(u accounts.User) (id, csrf string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.byID == nil {
		ws.byID = map[string]webSession{}
	}
	now := ws.clock()
	for k, v := range ws.byID {
		if now.After(v.expires) {
			delete(ws.byID, k)
		}
	}
	id, csrf = randomID(webSessionPrefix), randomID("")
	ws.byID[id] = webSession{user: u, csrf: csrf, expires: now.Add(webSessionTTL)}
	return id, csrf
}

func (ws *webSessions) clock() time.Time {
	if ws.now != nil {
		return ws.now()
	}
	return time.Now()
}

// user returns the signed-in user of a cookie's value.
func (ws *webSessions) user(tok string) (accounts.User, string, bool) {
	if !strings.HasPrefix(tok, webSessionPrefix) {
		return accounts.User{}, "", false
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	v, ok := ws.byID[tok]
	if !ok || ws.clock().After(v.expires) {
		return accounts.User{}, "", false
	}
	return v.user, tok, true
}

func (ws *webSessions) alive(id string) bool {
	_, _, ok := ws.user(id)
	return ok
}

func (ws *webSessions) csrf(id string) string {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.byID[id].csrf
}

func (ws *webSessions) csrfOK(id, got string) bool {
	want := ws.csrf(id)
	return want != "" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// end signs a session out.
func (ws *webSessions) end(id string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	delete(ws.byID, id)
}

// endUser signs every session of a user out.
func (ws *webSessions) endUser(userID string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for k, v := range ws.byID {
		if v.user.ID == userID {
			delete(ws.byID, k)
		}
	}
}
