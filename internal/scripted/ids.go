package scripted

import (
	"crypto/sha256"
	"encoding/base64"
	"math/rand/v2"
	"net/http"
)

const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randomID mimics the real APIs' ids (e.g. "toolu_01" + 22 base62 chars).
func randomID(prefix string, n int) string {
	b := make([]byte, len(prefix)+n)
	copy(b, prefix)
	for i := len(prefix); i < len(b); i++ {
		b[i] = idAlphabet[rand.IntN(len(idAlphabet))]
	}
	return string(b)
}

func newToolID(proto protocol) string {
	if proto == protoOpenAI {
		return randomID("call_", 24)
	}
	return randomID("toolu_01", 22)
}

func newMessageID() string    { return randomID("msg_01", 22) }
func newCompletionID() string { return randomID("chatcmpl-", 29) }
func newRequestID() string    { return randomID("req_011", 21) }

func setRequestID(w http.ResponseWriter) {
	w.Header().Set("request-id", newRequestID())
	w.Header().Set("x-request-id", newRequestID())
}

// Signature is the thinking-block signature the server sends for a
// thinking text. It is deterministic so tests can check that a client
// returned the signature unchanged.
func Signature(thinking string) string {
	sum := sha256.Sum256([]byte(thinking))
	buf := make([]byte, 0, 6*len(sum)+2)
	buf = append(buf, 0x12, 0xd6) // real signatures are protobuf and start "Et…"
	block := sum
	for range 6 {
		buf = append(buf, block[:]...)
		block = sha256.Sum256(block[:])
	}
	return base64.StdEncoding.EncodeToString(buf)
}
