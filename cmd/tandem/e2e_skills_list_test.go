package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

func skillFixtures(x *e2e) {
	x.WriteFile(".claude/skills/review/SKILL.md", "---\nname: review\ndescription: Reviews a change.\nargument-hint: \"[pr]\"\n---\nReview $ARGUMENTS.\n")
	x.WriteFile(".claude/skills/bad/SKILL.md", "---\nname: bad\ndescription: ok\neffort: extreme\n---\nB\n")
	x.WriteFile(".claude/commands/ship.md", "---\ndescription: Ship it\n---\nShip $1.\n")
	x.WriteFile(".claude/agents/reader.md", "---\nname: reader\ndescription: Reads.\ntools: Read, Grep\n---\nRead.\n")
}

type extensionsJSON struct {
	Skills   []struct{ Name, Scope string } `json:"skills"`
	Commands []struct {
		Name         string `json:"name"`
		Kind         string `json:"kind"`
		ArgumentHint string `json:"argument_hint"`
	} `json:"commands"`
	Agents []struct {
		Name  string   `json:"name"`
		Tools []string `json:"tools"`
	} `json:"agents"`
	Builtins []string                       `json:"builtin_commands"`
	Warnings []struct{ File, Field string } `json:"warnings"`
}

func (e extensionsJSON) summary() string {
	var parts []string
	for _, s := range e.Skills {
		parts = append(parts, "skill:"+s.Name)
	}
	for _, c := range e.Commands {
		parts = append(parts, "cmd:"+c.Name+":"+c.Kind)
	}
	for _, a := range e.Agents {
		parts = append(parts, "agent:"+a.Name+":"+strings.Join(a.Tools, "+"))
	}
	for _, w := range e.Warnings {
		parts = append(parts, "warn:"+w.Field)
	}
	return strings.Join(parts, " ")
}

const wantExtensions = "skill:bad skill:review cmd:bad:skill cmd:review:skill cmd:ship:command agent:reader:Read+Grep agent:general-purpose: agent:Explore:Read+Glob+Grep+Bash+WebFetch+WebSearch warn:effort"

func TestE2ESkillsList(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	skillFixtures(x)
	r := x.Run("skills", "list", "--json")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var ext extensionsJSON
	if err := json.Unmarshal([]byte(r.Stdout), &ext); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	if got := ext.summary(); got != wantExtensions {
		t.Errorf("skills list --json:\n got %s\nwant %s", got, wantExtensions)
	}
	text := x.Run("skills", "list")
	for _, want := range []string{"review", "/ship", "reader", "warning: ", "field \"effort\"", "/compact"} {
		if !strings.Contains(text.Stdout, want) {
			t.Errorf("skills list lacks %q:\n%s", want, text.Stdout)
		}
	}
}

func TestE2EServeSkillsEndpoints(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	skillFixtures(x)
	addr := freeAddr(t)
	const token = "e2e-skills-token-0123456789"
	p := x.Start("serve", "--addr", addr, "--token", token, "--workspace", x.Work)
	defer func() { p.Signal(15); p.Wait(15 * time.Second) }()
	base := "http://" + addr
	waitListening(t, base)
	call := func(method, path string, body any, out any) int {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_ = json.NewDecoder(resp.Body).Decode(out)
		return resp.StatusCode
	}
	var byFolder extensionsJSON
	if code := call("GET", "/api/skills?workspace="+url.QueryEscape(x.Work), nil, &byFolder); code != 200 || byFolder.summary() != wantExtensions {
		t.Errorf("GET /api/skills: %d %s", code, byFolder.summary())
	}
	var sess map[string]any
	call("POST", "/api/sessions", map[string]string{"cwd": x.Work}, &sess)
	var bySession extensionsJSON
	if code := call("GET", fmt.Sprintf("/api/sessions/%v/skills", sess["id"]), nil, &bySession); code != 200 || bySession.summary() != wantExtensions {
		t.Errorf("GET /api/sessions/{id}/skills: %d %s", code, bySession.summary())
	}
	var e map[string]any
	if code := call("GET", "/api/skills?workspace=/not/registered", nil, &e); code != 404 {
		t.Errorf("unregistered folder: %d %v", code, e)
	}
}
