package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"plumbline/internal/mcpserver"
	"plumbline/reports/ask"
)

// wire is one server spoken to as bytes, over Streamable HTTP or stdio: a
// request's body (a line, on stdio) in, the answer's body out.
type wire struct {
	name string
	send func(t *testing.T, body string) (status int, answer string)
}

// wires serves f over Streamable HTTP and over stdio until the test ends.
func (f *floor) wires(t *testing.T) []wire {
	ts := httptest.NewServer(mcpserver.StreamableHTTP(f.server))
	t.Cleanup(ts.Close)
	overHTTP := func(t *testing.T, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(out)
	}

	server, client := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.server.Run(ctx, mcpserver.Stdio(server, server)) }()
	t.Cleanup(func() { cancel(); client.Close(); <-done })
	r := bufio.NewReader(client)
	overStdio := func(t *testing.T, line string) (int, string) {
		client.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := client.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
		answer, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer over stdio: %v", err)
		}
		return 0, answer
	}
	overStdio(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	client.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	return []wire{{"HTTP", overHTTP}, {"stdio", overStdio}}
}

// rawID reads the id of a JSON-RPC answer exactly as it was written, and
// its error's code and plumbline refusal, if any.
func rawID(t *testing.T, answer string) (id string, code int64, refusal *ask.Refusal) {
	t.Helper()
	var msg struct {
		ID    json.RawMessage
		Error *struct {
			Code int64
			Data *ask.Refusal
		}
	}
	if err := json.Unmarshal([]byte(answer), &msg); err != nil {
		t.Fatalf("the answer is not JSON: %s", answer)
	}
	if msg.Error != nil {
		return string(msg.ID), msg.Error.Code, msg.Error.Data
	}
	return string(msg.ID), 0, nil
}

// errorOf is the error object of a JSON-RPC answer, as written.
func errorOf(answer string) string {
	var msg struct{ Error json.RawMessage }
	json.Unmarshal([]byte(answer), &msg)
	return string(msg.Error)
}

// A request's id comes back exactly as it was sent, or not at all: an id
// no JSON reader keeps exactly (past 2^53, or not a whole number) is
// refused with an invalid-request error that names the id and the rule,
// and comes back null, never rounded, cut or wrapped round; the largest
// exact integers and strings come back as they went.
func TestIDsComeBackAsSent(t *testing.T) {
	f := newFloor(t)
	for _, w := range f.wires(t) {
		for _, method := range []string{`"tools/list","params":{}`, `"tools/call","params":{"name":"health","arguments":{}}`} {
			for _, id := range []string{"1" + strings.Repeat("0", 30), "9007199254740993", "-9223372036854775809", "1.5", "2.0", "1e3", "-0.0"} {
				status, answer := w.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":`+method+`}`)
				got, code, refusal := rawID(t, answer)
				if got != "null" || code != jsonrpc.CodeInvalidRequest || w.name == "HTTP" && status != http.StatusBadRequest || refusal == nil || refusal.Argument != "id" || !strings.Contains(refusal.Rule, "9007199254740991") {
					t.Errorf("%s: id %s (%.20s…) came back as %s (status %d): %.160s", w.name, id, method, got, status, answer)
				}
				if strings.Contains(errorOf(answer), id) {
					t.Errorf("%s: the refusal repeats the id %s: %s", w.name, id, answer)
				}
			}
			for _, id := range []string{"9007199254740991", "-9007199254740991", "0", `"a string id"`} {
				_, answer := w.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":`+method+`}`)
				if got, code, _ := rawID(t, answer); got != id || code != 0 {
					t.Errorf("%s: id %s came back as %s: %.160s", w.name, id, got, answer)
				}
			}
		}
	}
}

// A body is one JSON value and nothing after it: bytes after the message
// (on stdio, after it on its line) are a parse error, never ignored, and
// the request is not run.
func TestBytesAfterTheMessageAreRefused(t *testing.T) {
	f := newFloor(t)
	for _, w := range f.wires(t) {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}} x`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"health","arguments":{}}}]`,
		} {
			status, answer := w.send(t, body)
			if w.name == "HTTP" && status != http.StatusBadRequest || strings.Contains(answer, `"result"`) {
				t.Errorf("%s: a body with bytes after its message was answered %d: %.160s", w.name, status, answer)
			}
			if w.name == "stdio" {
				if id, code, _ := rawID(t, answer); id != "null" || code != jsonrpc.CodeParseError {
					t.Errorf("stdio: a line with bytes after its message was answered %.160s", answer)
				}
			}
		}
		if _, answer := w.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`+"  \t"); !strings.Contains(answer, `"result"`) {
			t.Errorf("%s: white space after the message is no mistake: %.160s", w.name, answer)
		}
	}
}
