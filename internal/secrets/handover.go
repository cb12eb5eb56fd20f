package secrets

import (
	"bytes"
	"fmt"
	"strings"
)

// HandoverFDVar names the descriptor through which a re-executed tandem
// receives the credentials its parent image moved out of the environment
// (see Handover).
const HandoverFDVar = "TANDEM_SECRETS_FD"

// credentialSuffixes mark a variable whose name says it holds a
// credential. At start-up tandem has not read its config yet, so the names
// a config adds (api_key_env, secrets.env) are not known; moving a
// variable that is not secret costs nothing (tandem keeps it in its own
// environment and children still get it unless ScrubEnv drops it).
var credentialSuffixes = []string{
	"_API_KEY", "_APIKEY", "_KEY", "_TOKEN", "_SECRET", "_SECRET_KEY", "_ACCESS_KEY", "_ACCESS_KEY_ID",
	"_PASSWORD", "_PASSWD", "_PASS", "_CREDENTIALS", "_AUTH",
}

// Held reports whether a variable of tandem's environment is moved out of
// the environment the kernel shows in /proc/PID/environ: the well-known
// credentials and every name that looks like one.
func Held(name string) bool {
	if Default().secret[name] {
		return true
	}
	upper := strings.ToUpper(name)
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(upper, s) {
			return true
		}
	}
	return false
}

// splitHeld separates env into what stays visible and what is held back.
func splitHeld(env []string) (keep, held []string) {
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == HandoverFDVar {
			continue
		}
		if Held(k) {
			held = append(held, kv)
		} else {
			keep = append(keep, kv)
		}
	}
	return keep, held
}

// encodeHeld is the hand-over's format: KEY=VALUE entries, each ended by
// a NUL (as /proc/PID/environ is; a value cannot hold a NUL).
func encodeHeld(entries []string) []byte {
	var b bytes.Buffer
	for _, kv := range entries {
		b.WriteString(kv)
		b.WriteByte(0)
	}
	return b.Bytes()
}

func decodeHeld(data []byte) ([][2]string, error) {
	var out [][2]string
	for _, e := range bytes.Split(data, []byte{0}) {
		if len(e) == 0 {
			continue
		}
		k, v, ok := strings.Cut(string(e), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("credential hand-over: malformed entry")
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}
