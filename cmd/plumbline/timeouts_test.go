package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"plumbline/internal/pgtest"
)

// A client that declares a 60,000-byte body and sends a byte a second, on
// /token and on /mcp, and a keep-alive connection that goes silent, are
// each closed for their timeout, while another client is served the whole
// time: over real HTTP on TCP, against plumbline serve.
func TestSlowClientsAreCutOff(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := freeAddr(t)
	const body, mcpBody, idle = 2 * time.Second, 3 * time.Second, 2 * time.Second
	var out, logs syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runWith(ctx, []string{"serve", "--db", db.AppDSN, "--addr", addr,
			"--body-timeout", body.String(), "--mcp-body-timeout", mcpBody.String(), "--idle-timeout", idle.String()}, &out, &logs)
	}()
	waitFor(t, &logs, regexp.MustCompile(`"url":"([^"]+)"`), done)
	code, token, errOut := runCLI(t, "token", "create", "--service", "slow", "--db", db.AppDSN, "--public-url", "http://"+addr)
	if code != 0 {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	token = strings.TrimSpace(token)

	// closed reads whatever the server writes on conn until it closes it,
	// and returns that and how long it took; past guard it gives up, with
	// the connection still open.
	closed := func(conn net.Conn, guard time.Duration) (said string, held time.Duration, open bool) {
		start := time.Now()
		conn.SetReadDeadline(start.Add(guard))
		b, err := io.ReadAll(conn)
		var ne net.Error
		return string(b), time.Since(start), errors.As(err, &ne) && ne.Timeout()
	}
	slowBody := func(path string, header string) net.Conn {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: 60000\r\n\r\n", path, addr, header)
		go func() {
			for range 60 {
				if _, err := conn.Write([]byte("a")); err != nil {
					return
				}
				time.Sleep(time.Second)
			}
		}()
		return conn
	}

	// Each connection is closed because its timeout passed, as what the
	// server wrote before closing it says: a body that could not be read,
	// or (a silent keep-alive connection) nothing at all. How long each was
	// held is a figure; a connection still open well past its timeout (10
	// s) fails.
	var wg sync.WaitGroup
	check := func(what string, conn net.Conn, timeout time.Duration, want *regexp.Regexp) {
		defer wg.Done()
		defer conn.Close()
		said, held, open := closed(conn, timeout+10*time.Second)
		t.Logf("%s: closed after %s (timeout %s)", what, held.Round(10*time.Millisecond), timeout)
		switch {
		case open:
			t.Errorf("%s is still open %s after it began, past its timeout of %s", what, held.Round(time.Second), timeout)
		case !want.MatchString(said):
			t.Errorf("%s was not closed for its timeout; the server wrote:\n%s", what, said)
		}
	}
	wg.Add(3)
	go check("a slow body on /token", slowBody("/token", "Content-Type: application/x-www-form-urlencoded\r\n"), body,
		regexp.MustCompile(`^HTTP/1.1 400 [^\n]*\r\n(?s:.*)\{"error":"invalid_request","error_description":"the form could not be read"\}\n$`))
	go check("a slow body on /mcp with a token", slowBody("/mcp",
		"Authorization: Bearer "+token+"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"), mcpBody,
		regexp.MustCompile(`^HTTP/1.1 400 [^\n]*\r\n(?s:.*)\r\n\r\nfailed to read body: .*i/o timeout\n$`))
	idleConn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(idleConn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	resp, err := http.ReadResponse(bufio.NewReader(idleConn), nil)
	if err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("a keep-alive request: %v %v", err, resp)
	}
	go check("a silent keep-alive connection", idleConn, idle, regexp.MustCompile(`^$`))
	held := make(chan struct{})
	go func() {
		wg.Wait()
		close(held)
	}()

	// Meanwhile another client calls, each time on a fresh connection,
	// from now, while every slow connection is open, until the last is
	// closed: every call is answered.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	var answered int
	var slowest time.Duration
	for open := true; open; {
		start := time.Now()
		resp, err := client.Get("http://" + addr + "/.well-known/oauth-protected-resource/mcp")
		if err != nil {
			t.Fatalf("another client was not served while slow ones held connections: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("another client got %d while slow ones held connections", resp.StatusCode)
		}
		answered++
		slowest = max(slowest, time.Since(start))
		select {
		case <-held:
			open = false
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Logf("meanwhile %d other requests were answered, the slowest in %s", answered, slowest.Round(time.Millisecond))
}

// An /mcp write timeout that a call running its full statement timeout
// would outlast is refused at start, saying why.
func TestMCPWriteTimeoutMustExceedTheStatementTimeout(t *testing.T) {
	db := pgtest.NewDB(t)
	code, _, errOut := runCLI(t, "serve", "--db", db.AppDSN, "--addr", freeAddr(t), "--statement-timeout", "30s", "--mcp-write-timeout", "20s")
	if code != 2 || !strings.Contains(errOut, "--mcp-write-timeout must exceed --statement-timeout (30s)") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}
