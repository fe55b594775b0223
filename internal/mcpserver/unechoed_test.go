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

	"plumbline/internal/mcpserver"
)

// Requests that the go-sdk answers, on its own, with errors that quote what
// was sent: an unknown tool, prompt or method, params of the wrong shape, a
// body that is not JSON. Each carries the marker where the caller's text
// goes; the id, which JSON-RPC sends back by rule, never holds it.
var protocolMistakes = []struct{ what, body string }{
	{"an unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{META"name":"` + marker + `","arguments":{}}}`},
	{"an unknown prompt", `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{META"name":"` + marker + `"}}`},
	{"an unknown method", `{"jsonrpc":"2.0","id":3,"method":"` + marker + `","params":{META"x":1}}`},
	{"an unknown notification", `{"jsonrpc":"2.0","method":"notifications/` + marker + `"}`},
	{"params that are not an object", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"` + marker + `"}`},
	{"a resource that is not there", `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{META"uri":"plumbline://` + marker + `"}}`},
	{"arguments that are not an object", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{META"name":"health","arguments":"` + marker + `"}}`},
	{"a cut-off body", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"` + marker + `":1}`},
	{"a body that is not JSON", marker},
	{"a batch", `[{"jsonrpc":"2.0","id":7,"method":"` + marker + `"}]`},
}

// Over Streamable HTTP, for every protocol revision served, no error
// repeats the caller's text, and the server goes on answering.
func TestProtocolErrorsDoNotEchoOverHTTP(t *testing.T) {
	f := newFloor(t)
	ts := httptest.NewServer(mcpserver.StreamableHTTP(f.server))
	t.Cleanup(ts.Close)
	post := func(t *testing.T, revision, body string) (int, string) {
		meta := ""
		if revision >= "2026-07-28" && strings.Contains(body, "META") {
			meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + revision + `","io.modelcontextprotocol/clientCapabilities":{}},`
		}
		body = strings.ReplaceAll(body, "META", meta)
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", revision)
		// The 2026-07-28 revision repeats the method and name in headers,
		// as a client would send them.
		var msg struct {
			Method string
			Params struct{ Name, URI string }
		}
		if json.Unmarshal([]byte(body), &msg) == nil {
			req.Header.Set("Mcp-Method", msg.Method)
			if name := msg.Params.Name + msg.Params.URI; name != "" {
				req.Header.Set("Mcp-Name", name)
			}
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(out)
	}
	for _, revision := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(revision, func(t *testing.T) {
			for _, m := range protocolMistakes {
				status, out := post(t, revision, m.body)
				if strings.Contains(out, marker) {
					t.Errorf("%s: the answer (%d) repeats the request: %s", m.what, status, out)
				}
				if status == http.StatusOK && !strings.Contains(out, `"error"`) && !strings.Contains(out, `"isError"`) && out != "" {
					t.Errorf("%s: answered as if it were fine: %s", m.what, out)
				}
			}
			list := `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{META"cursor":""}}`
			if status, out := post(t, revision, list); status != http.StatusOK || !strings.Contains(out, `"tools"`) {
				t.Errorf("after the mistakes, tools/list got %d: %s", status, out)
			}
		})
	}
	// A revision plumbline does not serve is refused with the ones it does;
	// the one asked for comes back only when it looks like a revision.
	list := `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{META"cursor":""}}`
	if status, out := post(t, marker, list); strings.Contains(out, marker) || !strings.Contains(out, `"supported"`) {
		t.Errorf("an unknown revision got %d: %s", status, out)
	}
}

// Over stdio, no error repeats the caller's text; a line that is not a
// JSON-RPC message is answered with a parse error whose id is null, and the
// session goes on.
func TestProtocolErrorsDoNotEchoOverStdio(t *testing.T) {
	f := newFloor(t)
	server, client := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.server.Run(ctx, mcpserver.Stdio(server, server)) }()
	t.Cleanup(func() { cancel(); client.Close(); <-done })
	r := bufio.NewReader(client)
	send := func(line string) {
		client.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := client.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	receive := func() map[string]any {
		client.SetDeadline(time.Now().Add(5 * time.Second))
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		if strings.Contains(line, marker) {
			t.Errorf("the answer repeats the request: %s", line)
		}
		var msg map[string]any
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("the answer is not JSON: %s", line)
		}
		return msg
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	receive()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, m := range protocolMistakes {
		send(strings.ReplaceAll(m.body, "META", ""))
		if strings.HasPrefix(m.what, "an unknown notification") {
			continue // a notification has no answer
		}
		msg := receive()
		e, _ := msg["error"].(map[string]any)
		if res, _ := msg["result"].(map[string]any); e == nil && (res == nil || res["isError"] != true) {
			t.Errorf("%s: neither an error nor a refusal: %v", m.what, msg)
			continue
		}
		if m.what == "a body that is not JSON" || m.what == "a cut-off body" {
			if id, present := msg["id"]; !present || id != nil || e["code"] != float64(-32700) {
				t.Errorf("%s: id %v (present %v), code %v; want a null id and -32700", m.what, id, present, e["code"])
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":10,"method":"ping"}`)
	if msg := receive(); msg["result"] == nil {
		t.Errorf("after the mistakes, a ping got %v", msg)
	}
}
