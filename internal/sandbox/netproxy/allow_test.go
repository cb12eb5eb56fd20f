package netproxy

import (
	"net/netip"
	"strings"
	"testing"
)

// The pattern semantics of Claude Code's sandbox-runtime: "*.x.y"
// matches strict subdomains at any depth but not x.y itself; a name
// matches only itself; an entry without a port matches every port; case
// and a trailing dot do not matter.
func TestAllowMatch(t *testing.T) {
	l, err := ParseAllow([]string{
		"*.github.com", "API.Example.com", "localhost:8080", "10.0.0.5", "[::1]:443", "*.svc.internal:9000", "pypi.org.",
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		host string
		port int
		want string // the pattern that matches, "" for none
	}{
		{"a.github.com", 443, "*.github.com"},
		{"x.y.github.com", 80, "*.github.com"},
		{"github.com", 443, ""},
		{"evilgithub.com", 443, ""},
		{"github.com.evil.com", 443, ""},
		{"api.example.com", 1234, "API.Example.com"},
		{"www.api.example.com", 443, ""},
		{"example.com", 443, ""},
		{"localhost", 8080, "localhost:8080"},
		{"localhost", 8081, ""},
		{"10.0.0.5", 22, "10.0.0.5"},
		{"10.0.0.6", 22, ""},
		{"::1", 443, "[::1]:443"},
		{"::1", 80, ""},
		{"a.svc.internal", 9000, "*.svc.internal:9000"},
		{"a.svc.internal", 443, ""},
		{"pypi.org", 443, "pypi.org."},
	}
	for _, c := range cases {
		e, ok := l.match(normHost(c.host), c.port)
		got := ""
		if ok {
			got = e.raw
		}
		if got != c.want {
			t.Errorf("%s:%d matched %q, want %q", c.host, c.port, got, c.want)
		}
	}
	// A client's spelling is normalised the same way.
	for _, h := range []string{"A.GitHub.com", "a.github.com.", "[::1]"} {
		if _, ok := l.match(normHost(h), 443); !ok {
			t.Errorf("%q did not match", h)
		}
	}
}

// Which addresses a wildcard's names may resolve to although they are
// not public: the ones the list names, and loopback when it names
// "localhost", each on its entry's port.
func TestNamesAddr(t *testing.T) {
	l, err := ParseAllow([]string{"*.example.com", "10.0.0.5:5432", "localhost:8080"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ip   string
		port int
		want bool
	}{
		{"10.0.0.5", 5432, true}, {"10.0.0.5", 22, false}, {"::ffff:10.0.0.5", 5432, true}, {"10.0.0.6", 5432, false},
		{"127.0.0.1", 8080, true}, {"127.3.2.1", 8080, true}, {"::1", 8080, true}, {"127.0.0.1", 80, false},
		{"169.254.169.254", 80, false},
	} {
		if got := l.namesAddr(netip.MustParseAddr(c.ip), c.port); got != c.want {
			t.Errorf("namesAddr(%s, %d) = %v, want %v", c.ip, c.port, got, c.want)
		}
	}
}

// An exact entry wins over a wildcard, since it also lets the name reach
// a private address.
func TestAllowMatchPrefersExact(t *testing.T) {
	l, err := ParseAllow([]string{"*.example.com", "db.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := l.match("db.example.com", 5432); e.kind != exactName {
		t.Errorf("matched %q, want the exact entry", e.raw)
	}
}

// An invalid pattern is refused with its text and what to write instead.
func TestParseAllowErrors(t *testing.T) {
	for pattern, why := range map[string]string{
		"":                               "is empty",
		"*":                              "would allow every host",
		"*.com":                          "too broad",
		"*.":                             "would allow every host",
		"api.*.com":                      `"*" somewhere other than`,
		"*foo.com":                       `"*" somewhere other than`,
		"*.*.example.com":                `more than one "*"`,
		"https://api.example.com":        "is a URL",
		"example.com/path":               "not a host name",
		"user@example.com":               "not a host name",
		".example.com":                   "starts with a dot (for its subdomains write \"*.example.com\")",
		"example.com:0":                  "not a number from 1 to 65535",
		"example.com:99999":              "not a number from 1 to 65535",
		"example.com:http":               "not a number from 1 to 65535",
		"example.com:+80":                "not a number from 1 to 65535",
		"::1":                            "IPv6 address without brackets",
		"2001:db8::1:443":                "IPv6 address without brackets",
		"[::1":                           "does not close",
		"[example.com]":                  "not an IPv6 address",
		"[::1]x":                         "text after the closing bracket",
		"intranet":                       "single-label name",
		"ex ample.com":                   "not a host name",
		"bücher.example":                 "xn-- form",
		"a..b.com":                       "empty or over-long label",
		strings.Repeat("a", 64) + ".com": "empty or over-long label",
	} {
		_, err := ParseAllow([]string{"ok.example.com", pattern})
		if err == nil {
			t.Errorf("%q accepted", pattern)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, `"`+pattern+`"`) && pattern != "" || !strings.Contains(msg, why) || !strings.Contains(msg, "sandbox.network.allow") || !strings.Contains(msg, allowFix) {
			t.Errorf("%q: error %q, want it to quote the pattern, say %q and the fix", pattern, msg, why)
		}
	}
	for _, ok := range []string{"localhost", "LOCALHOST:3000", "127.0.0.1:4567", "[2001:db8::1]", "[::ffff:10.0.0.1]:80", "*.a.b", "x_y.example.com", "xn--bcher-kva.example"} {
		if _, err := ParseAllow([]string{ok}); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

// Adding a pattern twice lists it once.
func TestAllowAddDeduplicates(t *testing.T) {
	l, _ := ParseAllow([]string{"api.example.com"})
	for _, p := range []string{"API.example.com", "api.example.com.", "other.example.com"} {
		if err := l.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if got := l.Patterns(); len(got) != 2 || got[1] != "other.example.com" {
		t.Errorf("Patterns() = %q", got)
	}
}

// The pattern parser is hand-written: it never panics, judges a pattern
// the same every time, and what it accepts lists as written and matches
// what it names.
func FuzzParseAllow(f *testing.F) {
	for _, s := range []string{"*.github.com", "api.example.com:443", "[::1]:8080", "10.0.0.5", "localhost", "*", "*.com", "a..b", "[::1", "https://x.y", "\x00", "*.a.b:65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l1, err1 := ParseAllow([]string{s})
		l2, err2 := ParseAllow([]string{s})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%q: judged differently twice", s)
		}
		if err1 != nil {
			if err1.Error() != err2.Error() {
				t.Fatalf("%q: two errors", s)
			}
			return
		}
		if got := l1.Patterns(); len(got) != 1 || got[0] != s {
			t.Fatalf("%q listed as %q", s, got)
		}
		e := l2.entries[0]
		port := e.port
		if port == 0 {
			port = 443
		}
		var host string
		switch e.kind {
		case exactName:
			host = e.name
		case wildcard:
			host = "sub." + e.name
		case ipLiteral:
			host = e.ip.String()
		}
		if _, ok := l1.match(normHost(host), port); !ok {
			t.Fatalf("%q does not match %s:%d, which it names", s, host, port)
		}
		if e.kind == wildcard {
			if _, ok := l1.match(e.name, port); ok {
				t.Fatalf("%q matches its own apex %s", s, e.name)
			}
		}
	})
}
