package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/reports/ask"
)

const (
	uiExtension = "io.modelcontextprotocol/ui"
	uiMIMEType  = "text/html;profile=mcp-app"
)

// The server advertises MCP Apps, lists its one view and reads it back, and
// names it on the tools whose answers it draws, and on no other.
func TestChartViewOverMCP(t *testing.T) {
	f := newFloor(t)
	cs, _ := f.httpClient(t, "2025-11-25")
	ctx := context.Background()

	ext, ok := cs.InitializeResult().Capabilities.Extensions[uiExtension].(map[string]any)
	if !ok || !slices.Contains(ext["mimeTypes"].([]any), any(uiMIMEType)) {
		t.Errorf("the server does not advertise %s with %s: %v", uiExtension, uiMIMEType, cs.InitializeResult().Capabilities.Extensions)
	}

	lr, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Beside the metric definitions, one view.
	var views []*mcp.Resource
	for _, r := range lr.Resources {
		if strings.HasPrefix(r.URI, "ui://") {
			views = append(views, r)
		}
	}
	if len(views) != 1 {
		t.Fatalf("want one view, the chart view; got %d", len(views))
	}
	listed := views[0]
	if !strings.HasPrefix(listed.URI, "ui://plumbline/chart/") || listed.MIMEType != uiMIMEType {
		t.Errorf("resource %s (%s)", listed.URI, listed.MIMEType)
	}

	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: listed.URI})
	if err != nil {
		t.Fatal(err)
	}
	c := rr.Contents[0]
	sum := sha256.Sum256([]byte(c.Text))
	if want := "ui://plumbline/chart/" + hex.EncodeToString(sum[:])[:12]; c.URI != want || listed.URI != want {
		t.Errorf("the view's URI %s is not named by a hash of its content (%s)", c.URI, want)
	}
	if c.MIMEType != uiMIMEType || !strings.HasPrefix(c.Text, "<!doctype html>") || len(c.Text) < 10000 {
		t.Errorf("read %s, %d bytes starting %.40q", c.MIMEType, len(c.Text), c.Text)
	}
	b, _ := json.Marshal(c.Meta)
	if string(b) != `{"ui":{"csp":{"connectDomains":[],"resourceDomains":[]},"prefersBorder":true}}` {
		t.Errorf("the view's _meta declares %s; want no domains at all", b)
	}
	if rr.TTLMs < 24*3600*1000 {
		t.Errorf("the view may be cached for only %d ms, though its URI changes with its content", rr.TTLMs)
	}

	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var drawn []string
	for _, tool := range lt.Tools {
		ui, _ := tool.Meta["ui"].(map[string]any)
		if ui == nil {
			continue
		}
		drawn = append(drawn, tool.Name)
		if ui["resourceUri"] != listed.URI || len(tool.Meta) != 1 {
			t.Errorf("tool %s names view %v", tool.Name, tool.Meta)
		}
	}
	slices.Sort(drawn)
	if want := []string{"hours", "league", "quality", "sales", "team_weeks"}; !slices.Equal(drawn, want) {
		t.Errorf("tools naming the chart: %v, want %v", drawn, want)
	}
}

// A client that knows nothing of MCP Apps gets, byte for byte, the answer the
// engine gives (its request id aside): the view adds nothing to a result.
func TestResultsUnchangedForClientsWithoutTheExtension(t *testing.T) {
	f := newFloor(t)
	ts := httptest.NewServer(mcpserver.HTTPHandler(f.server))
	t.Cleanup(ts.Close)
	var wire bytes.Buffer
	tr := &mcp.LoggingTransport{Transport: &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, Writer: &wire}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if _, ok := cs.InitializeResult().Capabilities.Extensions[uiExtension]; !ok {
		t.Fatal("the server does not advertise the extension, so this test proves nothing")
	}
	id := regexp.MustCompile(`"request_id":"[0-9a-f]+"`)
	for _, c := range []struct{ tool, args string }{
		{"team_weeks", `{"who":{"team":"falcons"}}`},
		{"league", `{"period":{"named":"last_week"}}`},
		{"hours", `{"who":{"team":"falcons"},"period":{"named":"last_7_days"},"group_by":"day"}`},
		{"sales", `{"who":{"floor":true},"period":{"named":"this_week"},"group_by":"day"}`},
		{"quality", `{"who":{"team":"falcons"},"period":{"named":"last_28_days"},"group_by":"week"}`},
	} {
		wire.Reset()
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)}); err != nil {
			t.Fatal(err)
		}
		got := structuredOnTheWire(t, wire.String())
		want, err := json.Marshal(f.engine.Call(context.Background(), ask.Caller{Person: "local", Client: "local"}, c.tool, json.RawMessage(c.args)).Body)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := id.ReplaceAll(got, nil), id.ReplaceAll(want, nil); !bytes.Equal(g, w) {
			t.Errorf("%s: the structured content on the wire differs from the engine's answer\n got: %.300s\nwant: %.300s", c.tool, g, w)
		}
	}
}

// structuredOnTheWire returns the raw structuredContent of the one tool
// result the client read.
func structuredOnTheWire(t *testing.T, log string) []byte {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result struct {
				StructuredContent json.RawMessage `json:"structuredContent"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Result.StructuredContent != nil {
			return msg.Result.StructuredContent
		}
	}
	t.Fatalf("no tool result on the wire:\n%.2000s", log)
	return nil
}
