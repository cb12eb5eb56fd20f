package server

import (
	"crypto/rand"
	"encoding/base64"
)

// csrfHeader carries a signed-in page's CSRF token on every state change.
// Browser sign-ins themselves (the cookie's value, its CSRF token, expiry,
// sign-out) are accounts.Service's, kept in the store so a restart keeps
// them and every replica shares them.
const csrfHeader = "X-CSRF-Token"

// randomID is an unguessable value (256 bits) for a sign-in in progress:
// its state and nonce.
func randomID(prefix string) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}
