package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/attach"
)

// Ctrl+V pastes an image from the system clipboard, as in Claude Code: a
// terminal's own paste carries text only, so a screenshot copied to the
// clipboard is read with the desktop's clipboard tool, saved as a file of
// this run, and mentioned in the prompt (@path), which attaches it like any
// other image the prompt names.

// clipTimeout bounds one clipboard read: a clipboard owner that never
// answers must not hang the paste.
const clipTimeout = 5 * time.Second

// clipboardReaders are the commands that print the clipboard's image as PNG
// on this system, in the order tried: the Wayland and X11 tools on Linux
// and the BSDs (chosen by the display the session has), pngpaste on macOS.
func clipboardReaders(goos string, getenv func(string) string) [][]string {
	if goos == "darwin" {
		return [][]string{{"pngpaste", "-"}}
	}
	var out [][]string
	if getenv("WAYLAND_DISPLAY") != "" {
		out = append(out, []string{"wl-paste", "--no-newline", "--type", "image/png"})
	}
	if getenv("DISPLAY") != "" {
		out = append(out, []string{"xclip", "-selection", "clipboard", "-target", "image/png", "-out"})
	}
	return out
}

// clipPastedMsg is a clipboard read's outcome: the saved image's path, or
// why there is none.
type clipPastedMsg struct {
	path string
	err  error
}

// getenv reads the UI's environment (Options.Env when set, for tests).
func (m *model) getenv(name string) string {
	if m.opts.Env == nil {
		return os.Getenv(name)
	}
	for _, kv := range m.opts.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// pasteClipboardImage reads the clipboard's image in the background.
func (m *model) pasteClipboardImage() tea.Cmd {
	if m.be.Features().Images == nil {
		m.tr.notice(levelError, "this session cannot take images")
		return nil
	}
	readers := clipboardReaders(runtime.GOOS, m.getenv)
	if m.x.clipDir == "" {
		dir, err := os.MkdirTemp("", "tandem-clipboard-")
		if err != nil {
			m.tr.notice(levelError, "paste an image: "+err.Error())
			return nil
		}
		m.x.clipDir = dir
	}
	m.x.clipN++
	path := filepath.Join(m.x.clipDir, fmt.Sprintf("clipboard-%d.png", m.x.clipN))
	ctx := m.ctx
	return func() tea.Msg {
		err := readClipboardImage(ctx, readers, path)
		return clipPastedMsg{path: path, err: err}
	}
}

// readClipboardImage runs the first reader that is installed and saves
// what it prints at path, when that is an image tandem can send.
func readClipboardImage(ctx context.Context, readers [][]string, path string) error {
	if len(readers) == 0 {
		return errors.New("no clipboard to read here (no DISPLAY or WAYLAND_DISPLAY): paste the image's path, or @path/to/image.png")
	}
	var missing []string
	for _, r := range readers {
		if _, err := exec.LookPath(r[0]); err != nil {
			missing = append(missing, r[0])
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, clipTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, r[0], r[1:]...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("read the clipboard with %s: %w", r[0], err)
		}
		data, readErr := io.ReadAll(io.LimitReader(out, attach.MaxBytes+1))
		waitErr := cmd.Wait()
		switch {
		case readErr != nil:
			return fmt.Errorf("read the clipboard with %s: %w", r[0], readErr)
		case len(data) > attach.MaxBytes:
			return fmt.Errorf("the clipboard's image is larger than %d KiB: paste a smaller one", attach.MaxBytes>>10)
		case waitErr != nil || len(data) == 0:
			return fmt.Errorf("the clipboard holds no image (%s: %s)", r[0], orDefault(firstLine(strings.TrimSpace(stderr.String())), "nothing printed"))
		}
		// The same check every attached image passes (one of the types
		// every provider takes), so a paste that would be refused when
		// sent is refused now.
		if _, err := attach.Bytes(data); err != nil {
			return fmt.Errorf("the clipboard holds no image tandem can send: %w", err)
		}
		return os.WriteFile(path, data, 0o600)
	}
	return fmt.Errorf("no clipboard tool is installed: install %s, or paste the image's path", strings.Join(missing, " or "))
}

func orDefault(s, empty string) string {
	if s == "" {
		return empty
	}
	return s
}

// clipPasted puts the pasted image in the prompt as a mention.
func (m *model) clipPasted(msg clipPastedMsg) {
	if msg.err != nil {
		m.tr.notice(levelError, msg.err.Error())
		return
	}
	m.in.paste("@" + msg.path + " ")
}

// removeClipboardImages deletes this run's pasted images when the UI ends
// (a sent image is stored in the session; the file is only the carrier).
func (m *model) removeClipboardImages() {
	if m.x.clipDir != "" {
		_ = os.RemoveAll(m.x.clipDir)
	}
}
