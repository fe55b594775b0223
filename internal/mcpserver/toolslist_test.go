package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"plumbline/internal/mcpserver"
	"plumbline/internal/servetest"
	"plumbline/reports"
)

// tools/list is the same, byte for byte, on every call and on every
// replica: tools in name order, schema keys sorted.
func TestToolListIsStable(t *testing.T) {
	f := newFloor(t)
	listOn := func(srv http.Handler, revision string) []byte {
		t.Helper()
		ts := httptest.NewServer(srv)
		defer ts.Close()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		if revision == "2026-07-28" {
			body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
				`"io.modelcontextprotocol/clientCapabilities":{}}}}`
		}
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", revision)
		req.Header.Set("Mcp-Method", "tools/list")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("tools/list: %s %s", res.Status, b)
		}
		return b
	}
	list := func(srv http.Handler) []byte { return listOn(srv, "2025-11-25") }
	first := list(mcpserver.HTTPHandler(f.server))
	again := list(mcpserver.HTTPHandler(f.server))
	replica := list(mcpserver.HTTPHandler(mcpserver.New(reports.New(f.engine.Catalog(), f.store, nil), &mcpserver.Options{Logger: servetest.Quiet})))
	if !bytes.Equal(first, again) || !bytes.Equal(first, replica) {
		t.Errorf("tools/list differs between calls or replicas:\n%s\n%s\n%s", first, again, replica)
	}
	var res struct {
		Result struct{ Tools []struct{ Name string } }
	}
	if err := json.Unmarshal(first, &res); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Result.Tools {
		names = append(names, tool.Name)
	}
	if len(names) != 11 || !slices.IsSorted(names) {
		t.Errorf("tools in the order %v", names)
	}
	// What every conversation loads before its first question: the
	// demo catalogue's list stays within 15,000 bytes on every revision
	// (2026-07-28 adds the server's name to every result).
	stateless := listOn(mcpserver.HTTPHandler(f.server), "2026-07-28")
	if !bytes.Contains(stateless, []byte(`"name":"sales"`)) {
		t.Fatalf("tools/list on 2026-07-28: %s", stateless)
	}
	for _, b := range [][]byte{first, stateless} {
		if len(b) > 15000 {
			t.Errorf("tools/list is %d bytes, above 15,000", len(b))
		}
	}
	t.Logf("tools/list: %d bytes, %d on 2026-07-28", len(first), len(stateless))
}
