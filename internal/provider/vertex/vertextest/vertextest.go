// Package vertextest makes Google credentials for tests that need no
// network: a service-account key file whose token_uri is a local OAuth
// token server, so the real JWT-bearer flow of golang.org/x/oauth2 runs.
package vertextest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TokenServer is a local OAuth token endpoint for one service account.
type TokenServer struct {
	*httptest.Server
	// File is the service-account key file pointing at the server.
	File string
	// ExpiresIn is the lifetime (seconds) of the tokens it issues.
	ExpiresIn int

	key *rsa.PrivateKey
	mu  sync.Mutex
	n   int
	bad []string
}

// Email is the service account's address in the key file.
const Email = "tandem-test@tandem-test-project.iam.gserviceaccount.com"

// Project is the project id in the key file.
const Project = "tandem-test-project"

// NewTokenServer starts the token endpoint and writes the key file.
func NewTokenServer(t testing.TB) *TokenServer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ts := &TokenServer{key: key, ExpiresIn: 3600}
	ts.Server = httptest.NewServer(http.HandlerFunc(ts.serve))
	t.Cleanup(ts.Close)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	file := map[string]string{
		"type": "service_account", "project_id": Project, "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": Email, "client_id": "1", "token_uri": ts.URL + "/token",
	}
	data, _ := json.Marshal(file)
	ts.File = filepath.Join(t.TempDir(), "service-account.json")
	if err := os.WriteFile(ts.File, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return ts
}

// Issued is how many tokens the server issued.
func (ts *TokenServer) Issued() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.n
}

// Token is the n-th token issued (from 1).
func Token(n int) string { return fmt.Sprintf("ya29.test-token-%d", n) }

// Problems lists requests the server refused (bad grant, bad signature).
func (ts *TokenServer) Problems() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.bad...)
}

// serve checks the JWT-bearer grant as Google does (RS256 signature by the
// account's key, issuer, audience, scope) and issues the next token.
func (ts *TokenServer) serve(w http.ResponseWriter, r *http.Request) {
	fail := func(msg string) {
		ts.mu.Lock()
		ts.bad = append(ts.bad, msg)
		ts.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"error":"invalid_grant","error_description":%q}`, msg)
	}
	if err := r.ParseForm(); err != nil {
		fail("form: " + err.Error())
		return
	}
	if g := r.PostForm.Get("grant_type"); g != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		fail("grant_type " + g)
		return
	}
	parts := strings.Split(r.PostForm.Get("assertion"), ".")
	if len(parts) != 3 {
		fail("assertion is not a JWT")
		return
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		fail("signature encoding")
		return
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&ts.key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		fail("signature: " + err.Error())
		return
	}
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct {
		Iss, Aud, Scope string
	}
	_ = json.Unmarshal(claims, &c)
	if c.Iss != Email || c.Aud != ts.URL+"/token" || !strings.Contains(c.Scope, "cloud-platform") {
		fail("claims: " + string(claims))
		return
	}
	ts.mu.Lock()
	ts.n++
	n := ts.n
	ts.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":%d}`, Token(n), ts.ExpiresIn)
}
