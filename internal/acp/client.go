package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/tool"
)

// useClient makes a session's file tools and Bash go through the client
// where its initialize offered that: fs/read_text_file and
// fs/write_text_file (unsaved buffers are seen, edits land in the editor),
// terminal/* (commands run in the editor's terminal, shown in the tool
// call). Root checks, the permission engine and checkpoints stay in front.
func (ag *Agent) useClient(s *liveSession) {
	caps := ag.clientCaps()
	id := acpsdk.SessionId(s.live.ID())
	env := s.live.Env()
	if caps.Fs.ReadTextFile || caps.Fs.WriteTextFile {
		env.Files = clientFiles{conn: ag.conn, spool: ag.spool(), session: id, read: caps.Fs.ReadTextFile, write: caps.Fs.WriteTextFile}
	}
	if caps.Terminal {
		env.Terminal = clientTerminal{conn: ag.conn, spool: ag.spool(), session: id, turns: s.turns}
	}
}

// clientFiles reads and writes through the client what it offers, and the
// local disk otherwise.
type clientFiles struct {
	conn        *acpsdk.AgentSideConnection
	spool       *spool
	session     acpsdk.SessionId
	read, write bool
}

// clientReadLimit is the largest file on disk read through the client:
// its answer, the text JSON-escaped, has to fit the frameCap a message
// may have (an answer over it fails this read, not the connection; see
// frame.go). The file tools read larger files from disk anyway.
const clientReadLimit = 32 << 20

func (c clientFiles) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if !c.read || overClientLimit(path) {
		return tool.LocalFiles{}.ReadFile(ctx, path)
	}
	resp, err := c.conn.ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: c.session, Path: path})
	if err != nil {
		return nil, fmt.Errorf("the client could not read %s: %w", path, err)
	}
	return []byte(c.spool.take(resp.Content)), nil
}

// overClientLimit says a file on disk is too large to ask the client for.
func overClientLimit(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() > clientReadLimit
}

func (c clientFiles) WriteFile(ctx context.Context, path string, data []byte) error {
	if !c.write || !fitsMessage(path, data) {
		// A client on the ACP Go SDK could not read a longer request; the
		// editor sees the file change on disk.
		return tool.LocalFiles{}.WriteFile(ctx, path, data)
	}
	if _, err := c.conn.WriteTextFile(ctx, acpsdk.WriteTextFileRequest{SessionId: c.session, Path: path, Content: string(data)}); err != nil {
		return fmt.Errorf("the client could not write %s: %w", path, err)
	}
	return nil
}

// fitsMessage says an fs/write_text_file request with data fits the
// message a client on the ACP Go SDK reads (wire.go sends nothing longer).
func fitsMessage(path string, data []byte) bool {
	if len(data) < (sdkLineLimit+1)/8 {
		return true // even with every byte escaped as \u00XX
	}
	b, err := json.Marshal(acpsdk.WriteTextFileRequest{Path: path, Content: string(data)})
	return err == nil && len(b)+messageSlack <= sdkLineLimit
}

// messageSlack is room for a request's envelope around its params.
const messageSlack = 4 << 10

// terminalOutputLimit is what a client terminal keeps of a command's output.
const terminalOutputLimit = 1 << 20

// killWait bounds the wait for a killed command's exit.
const killWait = 10 * time.Second

// clientTerminal runs commands in client terminals: create, embed in the
// tool call, wait for the exit (kill when the turn is interrupted or the
// command times out), read the output, release.
type clientTerminal struct {
	conn    *acpsdk.AgentSideConnection
	spool   *spool
	session acpsdk.SessionId
	turns   *turnState
}

func (c clientTerminal) Run(ctx context.Context, cmd tool.TerminalCommand) (tool.TerminalResult, error) {
	var env []acpsdk.EnvVariable
	for _, kv := range cmd.Env {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, acpsdk.EnvVariable{Name: k, Value: v})
	}
	limit := terminalOutputLimit
	// Not cancelled with ctx: a terminal the client made is always killed
	// and released, even when the turn ended while it was being created.
	bg := context.WithoutCancel(ctx)
	created, err := c.conn.CreateTerminal(bg, acpsdk.CreateTerminalRequest{SessionId: c.session, Command: cmd.Shell,
		Args: []string{"-c", cmd.Script}, Cwd: acpsdk.Ptr(cmd.Dir), Env: env, OutputByteLimit: &limit})
	if err != nil {
		return tool.TerminalResult{}, fmt.Errorf("terminal/create: %w", err)
	}
	tid := created.TerminalId
	defer func() {
		_, _ = c.conn.ReleaseTerminal(bg, acpsdk.ReleaseTerminalRequest{SessionId: c.session, TerminalId: tid})
	}()
	c.turns.setTerminal(cmd.ToolUseID, tid)
	_ = c.conn.SessionUpdate(bg, acpsdk.SessionNotification{SessionId: c.session, Update: acpsdk.UpdateToolCall(
		acpsdk.ToolCallId(cmd.ToolUseID), acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{acpsdk.ToolTerminalRef(tid)}))})

	type exit struct {
		resp acpsdk.WaitForTerminalExitResponse
		err  error
	}
	done := make(chan exit, 1)
	go func() {
		r, err := c.conn.WaitForTerminalExit(bg, acpsdk.WaitForTerminalExitRequest{SessionId: c.session, TerminalId: tid})
		done <- exit{r, err}
	}()
	var ex exit
	select {
	case ex = <-done:
	case <-ctx.Done():
		_, _ = c.conn.KillTerminal(bg, acpsdk.KillTerminalRequest{SessionId: c.session, TerminalId: tid})
		select {
		case ex = <-done:
		case <-time.After(killWait):
		}
	}
	out, oerr := c.conn.TerminalOutput(bg, acpsdk.TerminalOutputRequest{SessionId: c.session, TerminalId: tid})
	if ex.err != nil && ctx.Err() == nil {
		return tool.TerminalResult{}, fmt.Errorf("terminal/wait_for_exit: %w", ex.err)
	}
	if oerr != nil {
		return tool.TerminalResult{}, fmt.Errorf("terminal/output: %w", oerr)
	}
	return tool.TerminalResult{Output: c.spool.take(out.Output), Truncated: out.Truncated, ExitCode: exitCode(ex.resp.ExitCode, ex.resp.Signal)}, nil
}

// exitCode is a shell's way of saying how a command ended: its code, or
// 128+n after signal n.
func exitCode(code *int, signal *string) int {
	switch {
	case code != nil:
		return *code
	case signal != nil:
		if n, ok := signalNumber("SIG" + strings.TrimPrefix(strings.ToUpper(*signal), "SIG")); ok {
			return 128 + int(n)
		}
		return 128 + int(syscall.SIGKILL)
	}
	return -1
}

// signalNumber knows the signals that end commands.
func signalNumber(name string) (syscall.Signal, bool) {
	switch name {
	case "SIGHUP":
		return syscall.SIGHUP, true
	case "SIGINT":
		return syscall.SIGINT, true
	case "SIGQUIT":
		return syscall.SIGQUIT, true
	case "SIGABRT":
		return syscall.SIGABRT, true
	case "SIGKILL":
		return syscall.SIGKILL, true
	case "SIGSEGV":
		return syscall.SIGSEGV, true
	case "SIGPIPE":
		return syscall.SIGPIPE, true
	case "SIGTERM":
		return syscall.SIGTERM, true
	}
	return 0, false
}
