// Command context measures what pruning and compaction do to a long
// session: a scripted session of 100 steps of mixed tools (Read of 24 KB
// files, Grep, Bash, Glob) run by the native agent loop against the
// scripted model server (Anthropic wire format, claude-sonnet-4-5 with its
// 200k window), once per policy. It prints, per policy, the requests sent,
// the input tokens, the peak request against the window, requests the
// server refused as too long, compactions, and the cost with Anthropic's
// prompt cache (cache reads at 0.1x, writes at 1.25x the input price).
//
//	go run ./bench/context [-steps 100] [-window 200000]
//
// The cache is modelled, not measured: each request is taken to read from
// the cache the longest prefix it shares with the previous request
// (system, tools and whole messages, cache_control markers ignored) and to
// write the rest, as Anthropic does with a breakpoint on the last message.
// The unpruned run is served without a context limit so its cost can be
// counted; its peak shows how far past the window it would have gone.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tandem-agent/tandem/bench/cachecost"
	"github.com/tandem-agent/tandem/internal/agent"
	"github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providers"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
)

// Anthropic claude-sonnet-4-5 prices, USD per million tokens.
const (
	priceIn         = 3.0
	priceCacheRead  = 0.30
	priceCacheWrite = 3.75
	priceOut        = 15.0
)

type policy struct {
	name  string
	cfg   compact.Config
	limit bool // serve with the window as the server's real limit
}

func main() {
	steps := flag.Int("steps", 100, "tool steps in the session")
	window := flag.Int64("window", 200_000, "context window in tokens")
	keep := flag.Int("keep-steps", 0, "compaction.prune_keep_steps to try (0: the default)")
	chunk := flag.Int("chunk-steps", 0, "compaction.prune_chunk_steps to try (0: the default)")
	flag.Parse()
	if *steps < 1 || *window < 10_000 {
		fmt.Fprintln(os.Stderr, "bench/context: -steps must be >= 1 and -window >= 10000")
		os.Exit(2)
	}
	f, t := false, true
	policies := []policy{
		{"unpruned (no pruning, no compaction)", compact.Config{Prune: &f, Auto: &f}, false},
		{"pruning only", compact.Config{Auto: &f}, true},
		{"compaction only", compact.Config{Prune: &f, Auto: &t}, true},
		{"pruning + compaction (default)", compact.Config{}, true},
	}
	for i := range policies {
		policies[i].cfg.PruneKeepSteps, policies[i].cfg.PruneChunkSteps = *keep, *chunk
	}
	fmt.Printf("bench/context: %d steps of mixed tools, %d-token window, claude-sonnet-4-5 prices\n\n", *steps, *window)
	tw := tabwriter.NewWriter(os.Stdout, 0, 2, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\trequests\tinput tokens\tpeak request\tpeak/window\trefused\tcompactions\tcost (cached)\tcost (no cache)\tvs unpruned\tresult\t")
	var base float64
	for i, p := range policies {
		r, err := run(*steps, *window, p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench/context:", err)
			os.Exit(1)
		}
		if i == 0 {
			base = r.cost
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f%%\t%d\t%d\t$%.3f\t$%.3f\t%.0f%%\t%s\t\n", p.name, r.requests, r.input, r.peak,
			100*float64(r.peak)/float64(*window), r.refused, r.compactions, r.cost, r.costNoCache, 100*r.cost/base, r.result)
	}
	tw.Flush()
}

type result struct {
	requests, refused, compactions int
	input, peak                    int64
	cost, costNoCache              float64
	result                         string
}

func run(steps int, window int64, p policy) (result, error) {
	script := mixedScript(steps)
	if p.limit {
		script.ContextLimit = window
	}
	srv := scripted.New(script)
	url, err := srv.Start()
	if err != nil {
		return result{}, err
	}
	defer srv.Close()
	prov, err := providers.New(provider.Config{Name: "anthropic", Kind: "anthropic", BaseURL: url, APIKey: "bench"})
	if err != nil {
		return result{}, err
	}
	rt, err := agent.New(agent.Options{
		Models: agent.ResolverFunc(func(string) (agent.Model, error) {
			return agent.Model{Provider: prov, ID: "claude-sonnet-4-5", MaxOutput: 8192, ContextWindow: window}, nil
		}),
		Sleep:      func(ctx context.Context, d time.Duration) error { return ctx.Err() },
		Compaction: p.cfg,
	})
	if err != nil {
		return result{}, err
	}
	rec := &turntest.Recorder{}
	var compactions int
	em := event.NewEmitter("bench", 0, event.SinkFunc(func(e event.Event) {
		if e.Type == event.CompactBoundary {
			compactions++
		}
	}))
	dir, err := os.MkdirTemp("", "bench-context")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	deps := turn.Deps{Events: em, Recorder: rec, Checker: permission.AllowAll{},
		Tools: tool.NewRegistry(fakeTool{"Read", 24 << 10}, fakeTool{"Grep", 6 << 10}, fakeTool{"Bash", 3 << 10}, fakeTool{"Glob", 1536}),
		Env:   tool.NewEnv("bench", dir, nil, "")}
	res, err := rt.RunTurn(context.Background(), turn.Input{SessionID: "bench", Prompt: "Work through the repository.", Model: "anthropic/claude-sonnet-4-5", Cwd: dir,
		// A fixed system prompt of about tandem's size, as the only system block.
		AppendSystemPrompt: strings.Repeat("You are a coding agent. Follow the instructions.\n", 200)}, deps)
	if err != nil {
		return result{}, err
	}
	out := result{compactions: compactions, result: res.Subtype}
	var prev []string
	for _, r := range srv.Requests() {
		if r.API != scripted.APIAnthropic {
			continue
		}
		n := int64(len(r.RawBody) / 4)
		out.requests++
		out.peak = max(out.peak, n)
		if r.Overflow {
			out.refused++
			continue
		}
		out.input += n
		out.costNoCache += float64(n) * priceIn / 1e6
		if r.Side {
			// Summary requests share nothing with the conversation.
			out.cost += float64(n) * priceIn / 1e6
			continue
		}
		parts := cachecost.Parts(r.Body)
		read := cachecost.SharedTokens(prev, parts)
		out.cost += float64(read)*priceCacheRead/1e6 + float64(max(n-read, 0))*priceCacheWrite/1e6
		prev = parts
	}
	for _, m := range rec.Messages() {
		if m.Usage != nil {
			out.cost += float64(m.Usage.OutputTokens) * priceOut / 1e6
			out.costNoCache += float64(m.Usage.OutputTokens) * priceOut / 1e6
		}
	}
	return out, nil
}

// mixedScript cycles Read, Read, Grep, Bash, Glob for steps steps.
func mixedScript(steps int) scripted.Script {
	s := scripted.Script{StepMarkers: true, Fallback: &scripted.Step{Text: "Summary: the repository was explored file by file; nothing was changed yet. Next: continue with the remaining files."}}
	cycle := []string{"Read", "Read", "Grep", "Bash", "Glob"}
	for i := range steps {
		name := cycle[i%len(cycle)]
		s.Steps = append(s.Steps, scripted.ToolStep(scripted.Call(name, map[string]any{"arg": fmt.Sprintf("target-%03d", i)})).WithText("Next I look at target "+fmt.Sprint(i)+"."))
	}
	s.Steps = append(s.Steps, scripted.TextStep("Done with the repository."))
	return s
}

// fakeTool returns size bytes of file-like text that differs per call.
type fakeTool struct {
	name string
	size int
}

func (f fakeTool) Name() string        { return f.name }
func (f fakeTool) Description() string { return "bench tool " + f.name }
func (f fakeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"arg":{"type":"string"}}}`)
}
func (f fakeTool) ReadOnly() bool { return true }
func (f fakeTool) Execute(_ context.Context, c tool.Call) (tool.Result, error) {
	line := fmt.Sprintf("%s %s: func handler(w http.ResponseWriter, r *http.Request) { return }\n", f.name, c.Input)
	return tool.Result{Content: strings.Repeat(line, f.size/len(line)+1)[:f.size]}, nil
}
