package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tandem-agent/tandem/internal/sandbox/netproxy"
	"github.com/tandem-agent/tandem/internal/strictjson"
)

// Config is the "sandbox" section of a config file:
//
//	"sandbox": "on"
//	"sandbox": {"mode": "on", "network": {"allow": ["api.example.com", "*.github.com"]},
//	            "profiles": ["go", "npm"], "write": ["~/scratch"]}
type Config struct {
	// Mode is "on" or "off" (default off: docs/decisions/sandbox-default.md).
	Mode string `json:"mode,omitempty"`
	// Network.Allow are the hosts commands may reach through tandem's
	// proxy: exact names, or "*.example.com" for its subdomains.
	Network NetworkConfig `json:"network,omitempty"`
	// Profiles name the toolchains whose caches are writable and whose
	// registries are reachable (see Profiles); nil: every profile, an
	// empty list: none.
	Profiles *[]string `json:"profiles,omitempty"`
	// Write are more writable folders ("~/" is the home folder).
	Write []string `json:"write,omitempty"`
}

// NetworkConfig is the network part of Config.
type NetworkConfig struct {
	Allow []string `json:"allow,omitempty"`
}

// The modes.
const (
	ModeOff = "off"
	ModeOn  = "on"
)

// Layer is one config file's raw "sandbox" section.
type Layer struct {
	File  string
	Scope string // "user" or "project"
	Raw   json.RawMessage
}

// ParseLayers decodes and merges the layers, weakest first. A project
// file may turn the sandbox on but never loosen it: its "off", hosts,
// profiles and folders are left out, each said in notes. (The user's own
// file and flags decide those.)
func ParseLayers(layers []Layer) (Config, []string, error) {
	var out Config
	var notes []string
	for _, l := range layers {
		if len(bytes.TrimSpace(l.Raw)) == 0 {
			continue
		}
		c, err := parse(l.Raw)
		if err != nil {
			return out, notes, fmt.Errorf("%s: sandbox: %w", l.File, err)
		}
		if l.Scope != "user" {
			if c.Mode == ModeOn {
				out.Mode = ModeOn
			}
			if c.Mode == ModeOff || len(c.Network.Allow) > 0 || c.Profiles != nil || len(c.Write) > 0 {
				notes = append(notes, fmt.Sprintf("%s: a project file may only turn the sandbox on; its sandbox off, network.allow, profiles and write are left out (set them in your user config)", l.File))
			}
			continue
		}
		if c.Mode != "" {
			out.Mode = c.Mode
		}
		out.Network.Allow = append(out.Network.Allow, c.Network.Allow...)
		if c.Profiles != nil {
			out.Profiles = c.Profiles
		}
		out.Write = append(out.Write, c.Write...)
	}
	return out, notes, nil
}

func parse(raw json.RawMessage) (Config, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		c := Config{Mode: s}
		return c, c.validate()
	}
	var c Config
	if err := strictjson.Unmarshal(raw, &c); err != nil {
		return c, err
	}
	return c, c.validate()
}

func (c Config) validate() error {
	if c.Mode != "" && c.Mode != ModeOn && c.Mode != ModeOff {
		return fmt.Errorf("mode %q: want %q or %q", c.Mode, ModeOn, ModeOff)
	}
	for _, h := range c.Network.Allow {
		if err := CheckHost(h); err != nil {
			return fmt.Errorf("network.allow: %w", err)
		}
	}
	if c.Profiles != nil {
		for _, p := range *c.Profiles {
			if _, ok := profiles[p]; !ok {
				return fmt.Errorf("profiles: unknown %q (known: %s)", p, strings.Join(ProfileNames(), ", "))
			}
		}
	}
	return nil
}

// CheckHost validates an allow-list entry by the proxy's own rules
// (netproxy.ParseAllow: a host, *.domain, localhost, an address, :port).
func CheckHost(h string) error {
	_, err := netproxy.ParseAllow([]string{h})
	return err
}

// On reports whether the config turns the sandbox on.
func (c Config) On() bool { return c.Mode == ModeOn }

// ProfileList is the profiles in force.
func (c Config) ProfileList() []string {
	if c.Profiles == nil {
		return ProfileNames()
	}
	return slices.Clone(*c.Profiles)
}
