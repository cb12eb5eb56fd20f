package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// A tunnel is cut after IdleTimeout with no byte either way, and not
// while bytes move in one direction only.
func TestSpliceIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, proxySide := net.Pipe()
		upSide, origin := net.Pipe()
		done := make(chan struct{})
		go func() {
			splice(proxySide, upSide, time.Minute)
			close(done)
		}()
		buf := make([]byte, 1)
		for range 5 { // 200 s of a download trickling, the upload quiet
			time.Sleep(40 * time.Second)
			go origin.Write([]byte("x"))
			if _, err := io.ReadFull(client, buf); err != nil {
				t.Fatalf("through the tunnel: %v", err)
			}
		}
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("the tunnel was cut while bytes moved")
		default:
		}
		time.Sleep(time.Minute + time.Second)
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("the tunnel outlived its idle timeout")
		}
		if _, err := client.Read(buf); err == nil {
			t.Error("the client's side is still open")
		}
		if _, err := origin.Read(buf); err == nil {
			t.Error("the origin's side is still open")
		}
	})
}

// A side that finishes writing before it reads (half-close) still reads
// the other's answer: the end of its stream passes through the tunnel,
// from the client to the origin and from the origin to the client.
func TestTunnelHalfClose(t *testing.T) {
	t.Run("client first", func(t *testing.T) { testHalfClose(t, false) })
	t.Run("origin first", func(t *testing.T) { testHalfClose(t, true) })
}

func testHalfClose(t *testing.T, originFirst bool) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	heard := make(chan string, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := up.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if originFirst {
			c.Write([]byte("hello"))
			c.(*net.TCPConn).CloseWrite()
			got, _ := io.ReadAll(c)
			heard <- string(got)
			return
		}
		n, _ := io.Copy(io.Discard, c) // until the client's end of stream
		fmt.Fprintf(c, "got %d bytes", n)
	}()
	_, addr, _ := startProxy(t, []string{up.Addr().String()}, Options{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %[1]s\r\n\r\n", up.Addr())
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	if originFirst {
		got, err := io.ReadAll(br)
		if string(got) != "hello" {
			t.Fatalf("read %q, %v; want the origin's greeting and its end of stream", got, err)
		}
		c.Write([]byte("thanks"))
		c.(*net.TCPConn).CloseWrite()
		if got := <-heard; got != "thanks" {
			t.Errorf("the origin heard %q after its half-close, want the client's answer", got)
		}
		return
	}
	c.Write([]byte("hello"))
	c.(*net.TCPConn).CloseWrite()
	got, err := io.ReadAll(br)
	if string(got) != "got 5 bytes" {
		t.Errorf("answer %q, %v; want the origin to see the end of the client's stream", got, err)
	}
}
