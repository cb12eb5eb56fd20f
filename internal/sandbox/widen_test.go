package sandbox

import "testing"

func TestProviderHost(t *testing.T) {
	for _, c := range []struct{ url, pattern, loopback string }{
		{"", "api.anthropic.com", ""},
		{"https://gw.example.com/v1", "gw.example.com", ""},
		{"https://gw.example.com:8443", "gw.example.com:8443", ""},
		{"http://127.0.0.1:4000", "127.0.0.1:4000", "127.0.0.1:4000"},
		{"http://localhost", "localhost:80", "localhost:80"},
		{"http://[::1]:9", "[::1]:9", "[::1]:9"},
	} {
		p, l, err := ProviderHost(c.url)
		if err != nil || p != c.pattern || l != c.loopback {
			t.Errorf("ProviderHost(%q) = %q, %q, %v; want %q, %q", c.url, p, l, err, c.pattern, c.loopback)
		}
	}
	for _, bad := range []string{"ftp://x.example.com", "not a url", "http://"} {
		if _, _, err := ProviderHost(bad); err == nil {
			t.Errorf("ProviderHost(%q): no error", bad)
		}
	}
}
