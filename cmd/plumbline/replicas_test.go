package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/oauth"
	"plumbline/internal/pgtest"
)

// Two plumbline servers on one database, behind one public URL, behave as
// one: a token minted for the URL works on both, the per-minute limit counts
// the calls on both, a revoked token stops working on both at once, and
// every call of both is in the one request log.
func TestReplicasActAsOne(t *testing.T) {
	db := pgtest.NewDB(t)
	public := "http://" + freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var urls []string
	for i := 0; i < 2; i++ {
		var out, logs syncBuffer
		done := make(chan int, 1)
		addr := freeAddr(t)
		go func() {
			done <- runWith(ctx, []string{"serve", "--db", db.AppDSN, "--addr", addr, "--public-url", public,
				"--calls-per-minute", "4"}, &out, &logs)
		}()
		// The log names the public URL; each replica is reached on its own address.
		waitFor(t, &logs, regexp.MustCompile(`"url":"([^"]+)"`), done)
		urls = append(urls, "http://"+addr+"/mcp")
	}
	code, token, errOut := runCLI(t, "token", "create", "--service", "twins", "--db", db.AppDSN, "--public-url", public)
	if code != 0 {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	token = strings.TrimSpace(token)
	sessions := make([]*mcp.ClientSession, 2)
	for i, url := range urls {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
				HTTPClient: &http.Client{Transport: oauth.BearerTransport(token, http.DefaultTransport)}}, nil)
		if err != nil {
			t.Fatalf("replica %d refused the token minted for the shared URL: %v", i, err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	call := func(i int) (string, bool) {
		res, err := sessions[i].CallTool(ctx, &mcp.CallToolParams{Name: "health", Arguments: json.RawMessage(`{}`)})
		if err != nil {
			return "", false
		}
		var a struct{ Error *struct{ Code string } }
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &a)
		if a.Error != nil {
			return a.Error.Code, true
		}
		return "ok", true
	}
	// Four calls across both replicas reach the limit of four a minute.
	for _, i := range []int{0, 1, 0, 1} {
		if got, _ := call(i); got != "ok" {
			t.Fatalf("call on replica %d: %s", i, got)
		}
	}
	for i := range sessions {
		if got, _ := call(i); got != "rate_limited" {
			t.Errorf("the fifth call on replica %d came back %q; the two replicas must share the limit", i, got)
		}
	}
	var logged int
	db.Conn(t).QueryRow(ctx, "SELECT count(*) FROM plumbline.request_log WHERE person = 'service:twins'").Scan(&logged)
	if logged != 6 {
		t.Errorf("the request log holds %d calls of the service, want all 6 from both replicas", logged)
	}
	if code, _, errOut := runCLI(t, "token", "revoke", "--service", "twins", "--db", db.AppDSN, "--public-url", public); code != 0 {
		t.Fatalf("token revoke: exit %d\n%s", code, errOut)
	}
	for i := range sessions {
		if _, answered := call(i); answered {
			t.Errorf("replica %d still answered a revoked token", i)
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	return freeAddrs(t, 1)[0]
}

// freeAddrs returns n loopback addresses free a moment ago, all different:
// each is held until all are found, so that no two are the same port.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		addrs[i] = l.Addr().String()
	}
	return addrs
}
