package main

import (
	"bufio"
	"context"
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
// each closed when their timeout passes, while other clients are served
// the whole time: over real HTTP on TCP, against plumbline serve.
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

	// Other clients call all along, each on a fresh connection; every one
	// must be answered promptly.
	stop := make(chan struct{})
	var served sync.WaitGroup
	served.Add(1)
	var answered int
	var slowest time.Duration
	go func() {
		defer served.Done()
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			start := time.Now()
			resp, err := client.Get("http://" + addr + "/.well-known/oauth-protected-resource/mcp")
			if err != nil {
				t.Errorf("another client was not served while slow ones held connections: %v", err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("another client got %d while slow ones held connections", resp.StatusCode)
			}
			answered++
			slowest = max(slowest, time.Since(start))
		}
	}()

	// closedAfter returns how long conn stays open, reading whatever the
	// server answers, up to limit.
	closedAfter := func(conn net.Conn, limit time.Duration) time.Duration {
		start := time.Now()
		conn.SetReadDeadline(start.Add(limit))
		io.Copy(io.Discard, conn)
		return time.Since(start)
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

	var wg sync.WaitGroup
	check := func(what string, conn net.Conn, timeout time.Duration) {
		defer wg.Done()
		defer conn.Close()
		held := closedAfter(conn, timeout+10*time.Second)
		t.Logf("%s: closed after %s (timeout %s)", what, held.Round(10*time.Millisecond), timeout)
		if held < timeout/2 {
			t.Errorf("%s was closed after %s, long before its timeout of %s: refused for another reason", what, held, timeout)
		}
		if held > timeout+1500*time.Millisecond {
			t.Errorf("%s held its connection %s, past its timeout of %s", what, held, timeout)
		}
	}
	wg.Add(3)
	go check("a slow body on /token", slowBody("/token", "Content-Type: application/x-www-form-urlencoded\r\n"), body)
	go check("a slow body on /mcp with a token", slowBody("/mcp",
		"Authorization: Bearer "+token+"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"), mcpBody)
	idleConn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(idleConn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	resp, err := http.ReadResponse(bufio.NewReader(idleConn), nil)
	if err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("a keep-alive request: %v %v", err, resp)
	}
	go check("a silent keep-alive connection", idleConn, idle)
	wg.Wait()
	close(stop)
	served.Wait()
	t.Logf("meanwhile %d other requests were answered, the slowest in %s", answered, slowest.Round(time.Millisecond))
	if answered < 10 {
		t.Errorf("only %d other requests were answered while slow clients held connections", answered)
	}
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
