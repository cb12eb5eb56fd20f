// Command tui measures the terminal UI (internal/tui) running as a real
// Bubble Tea program on pipes, with a backend that streams like a model:
//
//   - key-to-screen latency: while an answer streams (a delta every 5 ms)
//     under a long conversation, the time from a key written to the
//     program's input until the program writes that key to its output
//     (target: under 16 ms, one frame at 60 Hz);
//
//   - memory over a 500-message session (250 turns, each a prompt and an
//     answer with Markdown and a tool card): the Go heap after GC every 50
//     messages, which should grow by the conversation's text only.
//
//     go run ./bench/tui [-keys 300] [-messages 500]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/tui"
)

func main() {
	keys := flag.Int("keys", 300, "key presses measured")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the key-to-screen run to this file")
	messages := flag.Int("messages", 500, "messages in the memory run (two per turn)")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench/tui:", err)
			os.Exit(1)
		}
		_ = pprof.StartCPUProfile(f)
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if err := latency(*keys); err != nil {
		fmt.Fprintln(os.Stderr, "bench/tui:", err)
		os.Exit(1)
	}
	if err := memory(*messages); err != nil {
		fmt.Fprintln(os.Stderr, "bench/tui:", err)
		os.Exit(1)
	}
}

// backend streams a scripted answer into the sink for every turn.
type backend struct {
	sink   *tui.Sink
	turn   func(ctx context.Context, n int, emit func(event.Event))
	hist   int // earlier messages pairs shown on open
	turns  atomic.Int64
	doneCh chan int
}

func (b *backend) Info() tui.SessionInfo {
	return tui.SessionInfo{ID: "ses_bench", Cwd: os.TempDir(), Model: "anthropic/claude-sonnet-5-5", Mode: "normal"}
}
func (b *backend) Run(ctx context.Context, prompt string) (event.Event, error) {
	n := int(b.turns.Add(1))
	b.turn(ctx, n, b.sink.Emit)
	res := event.Event{Type: event.Result, Subtype: event.SubtypeSuccess}
	b.sink.Emit(res)
	if b.doneCh != nil {
		b.doneCh <- n
	}
	return res, nil
}
func (b *backend) Reply(string, permission.Answer) error               { return nil }
func (b *backend) SetMode(context.Context, string) error               { return nil }
func (b *backend) SetModel(context.Context, string) error              { return nil }
func (b *backend) Sessions(context.Context) ([]session.Summary, error) { return nil, nil }
func (b *backend) Open(context.Context, string) error                  { return nil }
func (b *backend) History(context.Context) ([]message.Message, error)  { return history(b.hist), nil }
func (b *backend) Features() tui.Features                              { return tui.Features{} }

// history is a long earlier conversation, so the screen is full and the
// transcript large while keys are measured.
func history(n int) []message.Message {
	var out []message.Message
	for i := 0; i < n; i++ {
		out = append(out, message.Message{Role: message.User, Content: []message.Block{message.TextBlock(fmt.Sprintf("question %d about the parser", i))}},
			message.Message{Role: message.Assistant, Content: []message.Block{message.TextBlock(answerText(i))}})
	}
	return out
}

func answerText(i int) string {
	return fmt.Sprintf("## Step %d\n\nThe **parser** reads `tokens` and builds a tree:\n\n- first it scans\n- then it folds\n\n```go\nfunc parse(s string) Node { return Node{} }\n```\n\nDone with step %d.", i, i)
}

// screen records the program's output and reports when a byte appears.
type screen struct {
	mu     sync.Mutex
	want   byte
	notify chan time.Time
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	if s.notify != nil && bytes.IndexByte(p, s.want) >= 0 {
		select {
		case s.notify <- time.Now():
		default:
		}
	}
	s.mu.Unlock()
	return len(p), nil
}

func (s *screen) expect(b byte) chan time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.want, s.notify = b, make(chan time.Time, 1)
	return s.notify
}

func start(be *backend, out io.Writer) (in *io.PipeWriter, stop func() error) {
	inR, inW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- tui.Run(ctx, tui.Options{Backend: be, Sink: be.sink, Input: inR, Output: out,
			Env: []string{"TERM=xterm-256color", "COLORTERM=truecolor"}, Width: 100, Height: 30})
	}()
	return inW, func() error { cancel(); inW.Close(); return <-errc }
}

func latency(keys int) error {
	// The streamed text never contains 'z', so a 'z' on the output is the key.
	const chunk = "streaming words of an answer with **bold** and `code` in it, then more "
	be := &backend{sink: tui.NewSink(), hist: 200}
	be.turn = func(ctx context.Context, _ int, emit func(event.Event)) {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				txt := chunk
				if i%20 == 19 {
					txt += "\n\n"
				}
				emit(event.Event{Type: event.Text, Text: txt})
			}
		}
	}
	scr := &screen{}
	in, stop := start(be, scr)
	time.Sleep(300 * time.Millisecond)
	fmt.Fprint(in, "stream a long answer\r")
	time.Sleep(500 * time.Millisecond) // the answer is streaming
	var lat []time.Duration
	cpu0, wall0 := cpuTime(), time.Now()
	for i := 0; i < keys; i++ {
		if i%60 == 59 {
			fmt.Fprint(in, "\x15") // ctrl+u: keep the line short
			time.Sleep(30 * time.Millisecond)
		}
		ch := scr.expect('z')
		sent := time.Now()
		fmt.Fprint(in, "z")
		select {
		case got := <-ch:
			lat = append(lat, got.Sub(sent))
		case <-time.After(2 * time.Second):
			return fmt.Errorf("key %d never reached the screen", i)
		}
		time.Sleep(time.Duration(10+i%7) * time.Millisecond) // not in step with the frame clock
	}
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	fmt.Fprint(in, "\x1b") // esc: interrupt the stream
	time.Sleep(100 * time.Millisecond)
	if err := stop(); err != nil {
		return err
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration { return lat[min(int(p*float64(len(lat))), len(lat)-1)] }
	verdict := "PASS"
	if pct(0.95) >= 16*time.Millisecond {
		verdict = "MISS"
	}
	fmt.Printf("key-to-screen while streaming (%d keys, 100x30, 400 earlier messages, a delta every 5 ms):\n", len(lat))
	fmt.Printf("  median %.1f ms  p95 %.1f ms  p99 %.1f ms  max %.1f ms  (target p95 < 16 ms) %s\n",
		ms(pct(0.5)), ms(pct(0.95)), ms(pct(0.99)), ms(lat[len(lat)-1]), verdict)
	fmt.Printf("  the whole process (UI, streaming, backend) used %.0f%% of one core meanwhile; on a busy machine the tail is waiting for a CPU\n",
		100*cpu.Seconds()/wall.Seconds())
	return nil
}

func memory(messages int) error {
	be := &backend{sink: tui.NewSink(), doneCh: make(chan int, 1)}
	body := answerText(0)
	be.turn = func(_ context.Context, n int, emit func(event.Event)) {
		for _, part := range strings.SplitAfter(body, " ") {
			emit(event.Event{Type: event.Text, Text: part})
		}
		id := fmt.Sprintf("tu_%d", n)
		emit(event.Event{Type: event.ToolUse, ToolUseID: id, ToolName: "Bash", Input: []byte(`{"command":"go test ./..."}`)})
		for j := 0; j < 20; j++ {
			emit(event.Event{Type: event.ToolOutput, ToolUseID: id, Output: fmt.Sprintf("ok  \tpkg/%d\t0.%03ds\n", j, j)})
		}
		emit(event.Event{Type: event.ToolResult, ToolUseID: id, Output: "ok"})
	}
	in, stop := start(be, &screen{})
	time.Sleep(300 * time.Millisecond)
	fmt.Printf("memory over a %d-message session (Go heap in use after GC):\n", messages)
	var first uint64
	for turn := 1; turn <= messages/2; turn++ {
		fmt.Fprintf(in, "prompt number %d\r", turn)
		<-be.doneCh
		if msgs := turn * 2; msgs%50 == 0 {
			time.Sleep(50 * time.Millisecond) // let the last batch render
			var st runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&st)
			if first == 0 {
				first = st.HeapInuse
			}
			fmt.Printf("  %4d messages: heap %6.2f MiB  (+%.1f KiB/message since 50)  rss %s\n", msgs, mib(st.HeapInuse),
				float64(st.HeapInuse-min(first, st.HeapInuse))/1024/float64(max(msgs-50, 1)), rss())
		}
	}
	return stop()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
func mib(b uint64) float64       { return float64(b) / (1 << 20) }

func rss() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:"))
		}
	}
	return "n/a"
}
