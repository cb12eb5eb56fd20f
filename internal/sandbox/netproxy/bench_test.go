package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
)

// The per-connection cost of the proxy: open a connection to a loopback
// echo server, send one byte, read it back, close — directly, through the
// proxy's unix socket (CONNECT), and through Forward and the proxy as a
// sandboxed command does. The difference from "direct" is the overhead.
//
//	go test -run '^$' -bench Connection -benchtime 2000x ./internal/sandbox/netproxy
func BenchmarkConnection(b *testing.B) {
	echo := echoServer(b)
	allow, err := ParseAllow([]string{echo})
	if err != nil {
		b.Fatal(err)
	}
	p := New(allow, Options{})
	sock := filepath.Join(b.TempDir(), "p.sock")
	unixLn, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	go p.Serve(unixLn)
	defer p.Close()
	tcpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	forwarded := make(chan error, 1)
	go func() { forwarded <- Forward(ctx, tcpLn, sock) }()
	defer func() { cancel(); <-forwarded }()

	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			c, err := net.Dial("tcp", echo)
			if err != nil {
				b.Fatal(err)
			}
			roundTrip(b, c, bufio.NewReader(c))
		}
	})
	b.Run("proxy", func(b *testing.B) {
		for b.Loop() {
			tunnel(b, "unix", sock, echo)
		}
	})
	b.Run("forward+proxy", func(b *testing.B) {
		for b.Loop() {
			tunnel(b, "tcp", tcpLn.Addr().String(), echo)
		}
	})
}

func tunnel(b *testing.B, network, proxyAddr, target string) {
	c, err := net.Dial(network, proxyAddr)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %[1]s\r\n\r\n", target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("CONNECT: %v %v", resp, err)
	}
	roundTrip(b, c, br)
}

func roundTrip(b *testing.B, c net.Conn, br *bufio.Reader) {
	if _, err := c.Write([]byte{'x'}); err != nil {
		b.Fatal(err)
	}
	if _, err := br.ReadByte(); err != nil {
		b.Fatal(err)
	}
	c.Close()
}

func echoServer(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	b.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}
