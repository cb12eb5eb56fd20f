package lkfake

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Hook makes the fake deliver events by HTTP callback to url, as Feishu
// does for an app whose Events and Callbacks are set to a request URL:
// each event a POST of its schema 2.0 JSON carrying token (the app's
// Verification Token), encrypted with encryptKey when it is not "" and
// then signed (X-Lark-Request-Timestamp, -Nonce, X-Lark-Signature), one
// at a time in order. The answer's status and body are recorded as the
// event's response.
func (s *Server) Hook(url, token, encryptKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = &hook{url: url, token: token, key: encryptKey, queue: make(chan event, 256)}
	go s.hook.run(s)
}

type hook struct {
	url, token, key string
	queue           chan event
}

func (h *hook) run(s *Server) {
	for {
		select {
		case e := <-h.queue:
			code, body, err := Post(context.Background(), h.url, e.payload, h.key, h.key)
			if err != nil {
				code = 0
			}
			s.mu.Lock()
			s.responses[e.id] = append(s.responses[e.id], Response{Code: code, Data: json.RawMessage(body)})
			s.touch()
			s.mu.Unlock()
		case <-s.closed:
			return
		}
	}
}

// Post sends plain (an event's JSON) to url as Feishu does: encrypted
// with encryptKey unless it is "", and signed with signKey unless it is
// "" (Feishu signs with the Encrypt Key; a test signs with a wrong one to
// forge). It returns the answer's status and body.
func Post(ctx context.Context, url string, plain []byte, encryptKey, signKey string) (int, string, error) {
	body := plain
	if encryptKey != "" {
		enc, err := Encrypt(plain, encryptKey)
		if err != nil {
			return 0, "", err
		}
		body, _ = json.Marshal(map[string]string{"encrypt": enc})
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if signKey != "" {
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		nonce := strconv.FormatInt(time.Now().UnixNano(), 36)
		sum := sha256.Sum256([]byte(ts + nonce + signKey + string(body)))
		req.Header.Set("X-Lark-Request-Timestamp", ts)
		req.Header.Set("X-Lark-Request-Nonce", nonce)
		req.Header.Set("X-Lark-Signature", hex.EncodeToString(sum[:]))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b), nil
}

// Encrypt is Feishu's event encryption: AES-256-CBC with the SHA-256 of
// the Encrypt Key as key, a random IV before the ciphertext, PKCS#7
// padding, base64.
func Encrypt(plain []byte, encryptKey string) (string, error) {
	key := sha256.Sum256([]byte(encryptKey))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return "", err
	}
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	buf := make([]byte, aes.BlockSize+len(plain)+pad)
	if _, err := rand.Read(buf[:aes.BlockSize]); err != nil {
		return "", err
	}
	copy(buf[aes.BlockSize:], plain)
	for i := len(buf) - pad; i < len(buf); i++ {
		buf[i] = byte(pad)
	}
	cipher.NewCBCEncrypter(block, buf[:aes.BlockSize]).CryptBlocks(buf[aes.BlockSize:], buf[aes.BlockSize:])
	return base64.StdEncoding.EncodeToString(buf), nil
}

// Challenge is the url_verification request Feishu sends when the
// request URL is saved, with token; it returns the challenge it expects
// back.
func Challenge(token string) (body []byte, challenge string) {
	challenge = fmt.Sprintf("challenge-%d", time.Now().UnixNano())
	body, _ = json.Marshal(map[string]string{"challenge": challenge, "token": token, "type": "url_verification"})
	return body, challenge
}

// Event returns the JSON of an event sent so far (for a test to post it
// again, or altered).
func (s *Server) Event(id string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.events {
		if e.id == id {
			return append([]byte(nil), e.payload...)
		}
	}
	return nil
}
