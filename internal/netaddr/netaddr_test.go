package netaddr

import (
	"net/netip"
	"testing"
)

func TestKind(t *testing.T) {
	for ip, kind := range map[string]string{
		"10.1.2.3": "private", "192.168.0.1": "private", "172.16.0.1": "private", "100.64.1.1": "private",
		"100.100.100.200": "private", "fd00:ec2::254": "private", "fd00::1": "private",
		"127.0.0.1": "loopback", "127.9.9.9": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "unspecified", "0.1.2.3": "unspecified", "::": "unspecified",
		"224.0.0.1": "link-local", "239.1.1.1": "multicast", "ff02::1": "link-local", "ff05::1": "multicast",
		"8.8.8.8": "", "2606:4700::1111": "", "100.128.0.1": "",
	} {
		if got := Kind(netip.MustParseAddr(ip)); got != kind {
			t.Errorf("Kind(%s) = %q, want %q", ip, got, kind)
		}
	}
}

func TestIsLocalName(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost.": true, "a.b.localhost": true,
		"localhost.example.com": false, "notlocalhost": false, "127.0.0.1": false, "": false,
	} {
		if got := IsLocalName(host); got != want {
			t.Errorf("IsLocalName(%q) = %v, want %v", host, got, want)
		}
	}
}
