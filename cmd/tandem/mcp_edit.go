package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/mcp"
)

// configDoc is a JSON config file edited in place: only mcpServers is
// touched, every other key is written back as it was read.
type configDoc struct {
	path    string
	top     map[string]json.RawMessage
	servers map[string]json.RawMessage
}

// readDoc reads the file of a scope (mcp.ScopeUser, ScopeLocal,
// ScopeProject) the way servers are loaded from it.
func readDoc(path, scope string) (*configDoc, error) {
	d := &configDoc{path: path, top: map[string]json.RawMessage{}, servers: map[string]json.RawMessage{}}
	data, err := mcp.ReadServersFile(path, scope)
	if errors.Is(err, os.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return d, nil
	}
	if err := json.Unmarshal(data, &d.top); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object (fix or move it, then retry): %w", path, err)
	}
	if raw, ok := d.top["mcpServers"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &d.servers); err != nil {
			return nil, fmt.Errorf("%s: mcpServers must be an object: %w", path, err)
		}
	}
	return d, nil
}

func (d *configDoc) has(name string) bool { _, ok := d.servers[name]; return ok }

func (d *configDoc) set(name string, entry any) error {
	b, err := json.Marshal(entry)
	if err != nil {
		return fmt.Errorf("encode server %s: %w", name, err)
	}
	d.servers[name] = b
	return nil
}

func (d *configDoc) remove(name string) { delete(d.servers, name) }

// setField sets (or with value nil, deletes) one key of an entry.
func (d *configDoc) setField(name, key string, value any) error {
	var entry map[string]json.RawMessage
	if err := json.Unmarshal(d.servers[name], &entry); err != nil {
		return fmt.Errorf("%s: mcpServers.%s is not an object: %w", d.path, name, err)
	}
	if value == nil {
		delete(entry, key)
	} else {
		b, _ := json.Marshal(value)
		entry[key] = b
	}
	return d.set(name, entry)
}

// save writes the file atomically, creating its folder.
func (d *configDoc) save() error {
	servers, err := json.Marshal(d.servers)
	if err != nil {
		return err
	}
	d.top["mcpServers"] = servers
	out, err := json.MarshalIndent(d.top, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", d.path, err)
	}
	if err := os.MkdirAll(filepath.Dir(d.path), 0o755); err != nil {
		return fmt.Errorf("save %s: %w", d.path, err)
	}
	tmp := d.path + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return fmt.Errorf("save %s: %w", d.path, err)
	}
	if err := os.Rename(tmp, d.path); err != nil {
		return fmt.Errorf("save %s: %w", d.path, err)
	}
	return nil
}
