package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// sdkRun is what testdata/agentsdk/drive.mjs reports.
type sdkRun struct {
	Messages   []map[string]any `json:"messages"`
	CanUseTool []struct {
		ToolName string         `json:"toolName"`
		Input    map[string]any `json:"input"`
	} `json:"canUseTool"`
	Hooks []struct {
		Event, Tool string
		Input       map[string]any
		ToolUseID   string `json:"toolUseID"`
		HasResponse bool   `json:"hasResponse"`
	} `json:"hooks"`
	Errors          []string `json:"errors"`
	Stderr          string   `json:"stderr"`
	InterruptMillis float64  `json:"interruptMillis"`
	TotalMillis     float64  `json:"totalMillis"`
	ToolCalls       int      `json:"toolCalls"`
	EndError        string   `json:"endError"`
}

func (r sdkRun) result() map[string]any {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i]["type"] == "result" {
			return r.Messages[i]
		}
	}
	return nil
}

func (r sdkRun) first(typ, subtype string) map[string]any {
	for _, m := range r.Messages {
		if m["type"] == typ && (subtype == "" || m["subtype"] == subtype) {
			return m
		}
	}
	return nil
}

// sdkExecutables are the CLIs the Claude Agent SDK tests run against: the
// real Claude Code CLI and tandem, with the same scripts and assertions.
func sdkExecutables(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{"tandem": tandemBin}
	if p, err := filepath.Abs("../../testdeps/node_modules/.bin/claude"); err == nil {
		if _, err := os.Stat(p); err == nil {
			out["claude"] = p
		}
	}
	return out
}

// runAgentSDK runs one scenario of drive.mjs with exe as the CLI.
func runAgentSDK(t *testing.T, x *e2e, exe, scenario string, env ...string) sdkRun {
	t.Helper()
	needProgram(t, "node")
	sdk, _ := filepath.Abs("../../testdeps/agent-sdk/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs")
	if _, err := os.Stat(sdk); err != nil {
		t.Skip("the Claude Agent SDK is not installed: run `npm ci --omit=optional` in testdeps/agent-sdk")
	}
	script, _ := filepath.Abs("testdata/agentsdk/drive.mjs")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = x.Work
	cmd.Env = append(x.Command(ctx).Env, "AGENT_SDK="+sdk, "EXE="+exe, "WORK="+x.Work, "SCENARIO="+scenario,
		"CLAUDE_CONFIG_DIR="+filepath.Join(x.Home, ".claude"), "DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		// CI runs as root, where claude refuses bypassPermissions outside a sandbox.
		"IS_SANDBOX=1")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var r sdkRun
	if err := json.Unmarshal(lastLine(stdout.Bytes()), &r); err != nil {
		t.Fatalf("%s: driver output: %v\nstdout:\n%s\nstderr:\n%s", exe, err, stdout.String(), stderr.String())
	}
	if runErr != nil || len(r.Errors) > 0 {
		t.Fatalf("%s: %v %v\ncli stderr:\n%s\nnode stderr:\n%s", filepath.Base(exe), runErr, r.Errors, r.Stderr, stderr.String())
	}
	return r
}

// The same SDK session against claude and tandem: canUseTool is asked
// before the edit (default mode asks before edits) and before rm, the
// deny holds, the PreToolUse and PostToolUse hook callbacks fire for the
// edit (the PostToolUse context reaching the model), and the
// query completes with Claude Code's result shape. A second query resumes
// the session and the model sees the first prompt.
func TestAgentSDKEditDenyHookResume(t *testing.T) {
	t.Parallel()
	for name, exe := range sdkExecutables(t) {
		t.Run(name, func(t *testing.T) {
			x := newE2E(t, scripted.Script{})
			x.serve(scripted.Script{Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("read1", "Read", map[string]any{"file_path": "WORK/greet.txt"})),
				scripted.ToolStep(scripted.CallID("edit1", "Edit", map[string]any{"file_path": "WORK/greet.txt", "old_string": "wrld", "new_string": "world"})),
				scripted.ToolStep(scripted.CallID("rm1", "Bash", map[string]any{"command": "rm -rf build"})),
				scripted.TextStep("Fixed the greeting; left build alone."),
				scripted.TextStep("You asked me to fix the greeting."),
			}})
			x.WriteFile("greet.txt", "hello wrld\n")
			x.WriteFile("build/out.o", "binary")

			r := runAgentSDK(t, x, exe, "edit")
			res := r.result()
			if res == nil || res["subtype"] != "success" || res["is_error"] != false {
				t.Fatalf("result = %v\nstderr: %s", res, r.Stderr)
			}
			for _, k := range []string{"duration_ms", "duration_api_ms", "num_turns", "session_id", "total_cost_usd", "usage", "permission_denials", "uuid"} {
				if _, ok := res[k]; !ok {
					t.Errorf("result lacks %s: %v", k, res)
				}
			}
			if res["result"] != "Fixed the greeting; left build alone." {
				t.Errorf("result text = %v", res["result"])
			}
			if got := x.ReadFile("greet.txt"); got != "hello world\n" {
				t.Errorf("greet.txt = %q", got)
			}
			if x.ReadFile("build/out.o") == "" {
				t.Error("the denied rm ran")
			}
			var asked []string
			for _, c := range r.CanUseTool {
				asked = append(asked, c.ToolName)
			}
			if !strings.Contains(strings.Join(asked, ","), "Edit") || !strings.Contains(strings.Join(asked, ","), "Bash") {
				t.Errorf("canUseTool asked for %v, want Edit and Bash", asked)
			}
			if len(r.Hooks) != 2 || r.Hooks[0].Event != "PreToolUse" || r.Hooks[0].Tool != "Edit" || r.Hooks[0].Input["new_string"] != "world" {
				t.Errorf("hook callbacks = %+v", r.Hooks)
			} else if post := r.Hooks[1]; post.Event != "PostToolUse" || post.Tool != "Edit" || post.ToolUseID != "edit1" || !post.HasResponse {
				t.Errorf("PostToolUse callback = %+v", post)
			}
			// The PostToolUse hook's context reaches the model with the
			// edit's result.
			if reqs := x.srv.MainRequests(); len(reqs) < 3 || !strings.Contains(string(reqs[2].RawBody), "POST-EDIT-CONTEXT") {
				t.Errorf("the PostToolUse hook's additionalContext is not in the request after the edit")
			}
			if d, _ := res["permission_denials"].([]any); len(d) != 1 {
				t.Errorf("permission_denials = %v", res["permission_denials"])
			}
			init := r.first("system", "init")
			if init == nil || init["session_id"] == "" || init["cwd"] == nil {
				t.Errorf("system/init = %v", init)
			}
			sid, _ := res["session_id"].(string)

			r2 := runAgentSDK(t, x, exe, "resume", "RESUME="+sid)
			if res2 := r2.result(); res2 == nil || res2["result"] != "You asked me to fix the greeting." {
				t.Fatalf("resumed result = %v", res2)
			}
			reqs := x.srv.MainRequests()
			last := string(reqs[len(reqs)-1].RawBody)
			if !strings.Contains(last, "fix the greeting, then clean up") || !strings.Contains(last, "what did I ask you before?") {
				t.Errorf("the resumed request does not hold both prompts:\n%.2000s", last)
			}
		})
	}
}

// serve replaces the test's model server by one serving s, with the WORK/
// placeholder in tool inputs (of its steps and threads) made the workspace: Claude Code's file tools
// take absolute paths.
func (x *e2e) serve(s scripted.Script) {
	x.t.Helper()
	fill := func(steps []scripted.Step) {
		for i := range steps {
			for j := range steps[i].ToolCalls {
				c := &steps[i].ToolCalls[j]
				c.Input = json.RawMessage(strings.ReplaceAll(string(c.Input), "WORK/", x.Work+"/"))
			}
		}
	}
	fill(s.Steps)
	for i := range s.Threads {
		fill(s.Threads[i].Steps)
	}
	srv, url := testfiles.Scripted(x.t, s)
	x.srv.Close()
	x.srv, x.url = srv, url
}

// interrupt() stops a running command and ends the query with a result,
// under both CLIs.
func TestAgentSDKInterrupt(t *testing.T) {
	t.Parallel()
	for name, exe := range sdkExecutables(t) {
		t.Run(name, func(t *testing.T) {
			marker := sleepMarker()
			x := newE2E(t, scripted.Script{Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("sleep1", "Bash", map[string]any{
					// Not `sleep`: the claude CLI refuses a long plain sleep. The
					// marker, an argument python ignores, finds the process.
					"command": "python3 -c 'import time; time.sleep(300); print(1)' " + marker})),
				scripted.TextStep("unreachable"),
			}})
			killAtCleanup(t, marker)
			r := runAgentSDK(t, x, exe, "interrupt")
			res := r.result()
			t.Logf("%s: result %v; error %q; the query took %.0f ms", name, res, r.EndError, r.TotalMillis)
			if res == nil && r.EndError == "" {
				t.Fatalf("no result: %v", r.Messages)
			}
			// The command was stopped, not left running: its process is
			// gone. (The query's time told this apart only on a quiet
			// machine: loaded, the real CLI took 50 s of a 45 s limit.)
			sleepGone(t, marker)
			if res != nil && (res["result"] == "unreachable" || res["is_error"] != true || res["subtype"] != "error_during_execution") {
				t.Errorf("interrupted result = %v, want an error_during_execution that did not go on", res)
			}
		})
	}
}

// A tool of the SDK host's in-process MCP server (createSdkMcpServer) is
// offered to the model and runs inside the host, under both CLIs.
func TestAgentSDKInProcessMCPServer(t *testing.T) {
	t.Parallel()
	for name, exe := range sdkExecutables(t) {
		t.Run(name, func(t *testing.T) {
			x := newE2E(t, scripted.Script{Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("add1", "mcp__calc__add", map[string]any{"a": 2, "b": 3})),
				scripted.TextStep("The sum is 5."),
			}})
			r := runAgentSDK(t, x, exe, "sdkmcp")
			if res := r.result(); res == nil || res["subtype"] != "success" {
				t.Fatalf("result = %v", res)
			}
			if r.ToolCalls != 1 {
				t.Errorf("the in-process tool ran %d times, want 1\nstderr: %s", r.ToolCalls, r.Stderr)
			}
			reqs := x.srv.MainRequests()
			if !strings.Contains(string(reqs[0].RawBody), "mcp__calc__add") {
				t.Error("the in-process server's tool was not offered")
			}
			if !strings.Contains(string(reqs[len(reqs)-1].RawBody), "sum is 5") {
				t.Error("the tool's result did not reach the model")
			}
		})
	}
}
