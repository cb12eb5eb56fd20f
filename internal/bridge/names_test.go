package bridge

import "testing"

// Every command help lists is a command; a word that is not, is not.
func TestIsCommand(t *testing.T) {
	for _, c := range []string{"/new", "/sessions", "/resume", "/model", "/mode", "/stop", "/rewind", "/status", "/cost", "/help", "/start", "/NEW"} {
		if !IsCommand(c) {
			t.Errorf("%s is not a command", c)
		}
	}
	for _, c := range []string{"/fix", "new", "/", "", "—", "tandem"} {
		if IsCommand(c) {
			t.Errorf("%q is a command", c)
		}
	}
}
