// Command scripted-model serves a scripted fake LLM API (Anthropic Messages
// and OpenAI Chat Completions) for end-to-end tests, benchmarks and running
// the Claude Code CLI offline. It prints the base URL as its first stdout
// line and serves until SIGINT or SIGTERM.
//
//	scripted-model --script FILE [--addr 127.0.0.1:0] [--print-url] [--require-key K] [--log]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scripted-model:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scripted-model", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scriptPath := fs.String("script", "", "JSON script file (required)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	printURL := fs.Bool("print-url", true, "print the base URL as the first stdout line")
	requireKey := fs.String("require-key", "", "answer 401 unless this API key is sent")
	logReqs := fs.Bool("log", false, "log one line per request to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *scriptPath == "" {
		fs.Usage()
		return errors.New("--script is required (a JSON file with {\"steps\": [...]})")
	}
	script, err := scripted.LoadScript(*scriptPath)
	if err != nil {
		return err
	}
	// Nobody can read the recordings of a standalone server.
	opts := []scripted.Option{scripted.WithAddr(*addr), scripted.WithoutRecording()}
	if *requireKey != "" {
		opts = append(opts, scripted.WithRequireKey(*requireKey))
	}
	if *logReqs {
		logger := log.New(stderr, "scripted-model: ", log.LstdFlags|log.Lmicroseconds)
		opts = append(opts, scripted.WithLogf(logger.Printf))
	}
	srv := scripted.New(script, opts...)
	url, err := srv.Start()
	if err != nil {
		return err
	}
	if *printURL {
		fmt.Fprintln(stdout, url)
	}

	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
	}
	return nil
}
