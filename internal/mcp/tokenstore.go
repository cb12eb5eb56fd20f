package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/oauth2"

	"github.com/tandem-agent/tandem/internal/regular"
)

// TokenStore keeps each remote server's OAuth sign-in (tokens, the client
// registration, the endpoints to refresh at) in one file per server under
// Dir: the folder is 0700 and each file 0600, so only the user reads them.
// A sign-in is keyed by the server's name and URL: a token is never sent to
// a URL other than the one it was issued for.
type TokenStore struct {
	Dir string
	mu  sync.Mutex
}

// NewTokenStore is the store under dataDir/mcp-oauth.
func NewTokenStore(dataDir string) *TokenStore {
	return &TokenStore{Dir: filepath.Join(dataDir, "mcp-oauth")}
}

// oauthRecord is one server's sign-in as stored.
type oauthRecord struct {
	Server string `json:"server"`
	URL    string `json:"url"`
	// The client as registered (dynamically, by metadata document or
	// pre-registered) and the endpoints a refresh goes to.
	ClientID     string           `json:"client_id,omitempty"`
	ClientSecret string           `json:"client_secret,omitempty"`
	AuthURL      string           `json:"auth_url,omitempty"`
	TokenURL     string           `json:"token_url,omitempty"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style,omitempty"`
	RedirectURL  string           `json:"redirect_url,omitempty"`
	Scopes       []string         `json:"scopes,omitempty"`
	// StepUp holds scopes a server asked for (insufficient_scope) that the
	// next sign-in must request.
	StepUp []string      `json:"step_up,omitempty"`
	Token  *oauth2.Token `json:"token,omitempty"`
}

// maxRecord bounds a record file (tokens are a few KB).
const maxRecord = 1 << 20

func (s *TokenStore) path(server, url string) string {
	sum := sha256.Sum256([]byte(server + "\n" + url))
	return filepath.Join(s.Dir, server+"-"+hex.EncodeToString(sum[:8])+".json")
}

// load returns the record for server at url, or nil when there is none.
func (s *TokenStore) load(server, url string) (*oauthRecord, error) {
	if s == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	data, _, err := regular.ReadCapped(s.path(server, url), maxRecord)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the sign-in of mcp server %s: %w", server, err)
	}
	var r oauthRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("the sign-in of mcp server %s (%s) is damaged: %w; run `tandem mcp logout %s` and sign in again", server, s.path(server, url), err, server)
	}
	return &r, nil
}

// update reads the record (empty if none), lets f change it and writes it
// back atomically with user-only permissions.
func (s *TokenStore) update(server, url string, f func(r *oauthRecord)) error {
	if s == nil {
		return nil
	}
	r, err := s.load(server, url)
	if err != nil || r == nil {
		r = &oauthRecord{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Server, r.URL = server, url
	f(r)
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("save the sign-in of mcp server %s: %w", server, err)
	}
	if err := os.Chmod(s.Dir, 0o700); err != nil {
		return fmt.Errorf("save the sign-in of mcp server %s: %w", server, err)
	}
	tmp, err := os.CreateTemp(s.Dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("save the sign-in of mcp server %s: %w", server, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("save the sign-in of mcp server %s: %w", server, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), s.path(server, url)); err != nil {
		return fmt.Errorf("save the sign-in of mcp server %s: %w", server, err)
	}
	return nil
}

// Delete forgets the sign-in of server at url (logout).
func (s *TokenStore) Delete(server, url string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(s.path(server, url))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// SignedIn reports whether a token is stored for server at url.
func (s *TokenStore) SignedIn(server, url string) bool {
	r, err := s.load(server, url)
	return err == nil && r != nil && r.Token != nil
}
