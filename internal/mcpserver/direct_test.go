package mcpserver_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"plumbline/internal/mcpserver"
)

// A tool call answered directly (without the go-sdk's per-request session)
// gets the very response the go-sdk gives: the same status, headers that
// matter and body, byte for byte but for the request id. Randomized
// requests, through the bearer check in front as in production, mix what
// clients send (every revision, ids, _meta, the 2026-07-28 headers, every
// tool with good and bad arguments) with what they should not (unknown
// fields and tools, a wrong case, mismatched headers, other media types),
// so that both the calls answered directly and the requests left to the
// go-sdk are compared.
func TestDirectCallsAnswerAsTheSDK(t *testing.T) {
	s := newSurface(t)
	t.Cleanup(func() { mcpserver.SetDirect(true) })
	rng := rand.New(rand.NewPCG(2026, 12))
	const n = 400
	before := mcpserver.DirectAnswered()
	for i := range n {
		req := randomCall(rng)
		mcpserver.SetDirect(true)
		direct := s.send(t, req)
		mcpserver.SetDirect(false)
		sdk := s.send(t, req)
		if direct != sdk {
			t.Errorf("request %d answered otherwise directly than by the go-sdk:\n  request: %s %s\n  direct:  %s\n  go-sdk:  %s", i, req.header, req.body, direct, sdk)
		}
	}
	// Most of the requests are ones a client sends, and were answered
	// directly; the rest went on to the go-sdk.
	got := mcpserver.DirectAnswered() - before
	if got < n/4 || got > n*3/4 {
		t.Errorf("%d of %d requests were answered directly; the mix should send about half each way", got, n)
	}
	t.Logf("%d of %d requests answered directly, the rest by the go-sdk; every response the same both ways", got, n)
}

// rawCall is one POST to /mcp: its headers and body.
type rawCall struct {
	header http.Header
	body   string
}

// send posts a call with the surface's token and returns what came back,
// masked and flattened: status, every header but those that differ from
// one response to the next (the date, the length, which the request id
// does not change), the body.
func (s *surface) send(t *testing.T, c rawCall) string {
	t.Helper()
	h := c.header.Clone()
	h.Set("Authorization", "Bearer "+s.token)
	h.Set("Accept-Encoding", "identity")
	resp, text := s.do(t, h, []byte(c.body))
	var headers []string
	for name, values := range resp.Header {
		if name != "Date" && name != "Content-Length" {
			headers = append(headers, fmt.Sprintf("%s=%q", name, values))
		}
	}
	slices.Sort(headers)
	return fmt.Sprintf("%d %s %s", resp.StatusCode, strings.Join(headers, " "), strings.TrimSpace(text))
}

// Arguments each tool is called with: good ones, and some the engine
// refuses.
var directArguments = map[string][]string{
	"sales":              {`{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team"}`, `{"who":{"team":"hawks"},"period":{"named":"last_28_days"},"metrics":["close_rate"],"compact":true}`, `{"who":{"agent":"a005"},"period":{"named":"today"}}`, `{"who":5}`},
	"hours":              {`{"who":{"agent":"a005"},"period":{"named":"last_week"},"group_by":"day"}`, `{"who":{"team":"hawks"},"period":{"named":"nonsense"}}`},
	"quality":            {`{"who":{"team":"hawks"},"period":{"named":"last_28_days"},"group_by":"week"}`},
	"team_day":           {`{"who":{"team":"hawks"}}`, `{"who":{"floor":true},"period":{"named":"yesterday"}}`},
	"team_weeks":         {`{"who":{"team":"hawks"}}`, `{"who":{"floor":true},"compare_to":"previous_period","weeks":2}`},
	"league":             {`{"period":{"named":"last_week"}}`, `{"period":{"named":"today"}}`},
	"roster":             {`{"who":{"team":"hawks"}}`},
	"find_people":        {`{"query":"maria"}`, `{"query":""}`},
	"freshness":          {`{}`},
	"metric_definitions": {`{}`, `{"metrics":["close_rate"]}`},
}

// randomCall is a request a client might send to /mcp, or one near it.
func randomCall(rng *rand.Rand) rawCall {
	pick := func(choices ...string) string { return choices[rng.IntN(len(choices))] }
	often := func() bool { return rng.IntN(20) < 19 }
	tools := []string{"sales", "hours", "quality", "team_day", "team_weeks", "league", "roster", "find_people", "freshness", "metric_definitions"}
	tool := tools[rng.IntN(len(tools))]
	if !often() {
		tool = pick("nope", "Sales", "")
	}
	revision := "2026-07-28"
	if !often() {
		revision = pick("2025-11-25", "2025-06-18", "2025-03-26", "", "2099-01-01")
	}

	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if !often() {
		h.Set("Content-Type", pick("application/json; charset=utf-8", "text/plain", "application/json;;"))
	}
	h.Set("Accept", "application/json, text/event-stream")
	if !often() {
		h.Set("Accept", pick("*/*", "application/json", "text/event-stream, application/*", "application/json;q=0.9, text/event-stream"))
	}
	if revision != "" {
		h.Set("MCP-Protocol-Version", revision)
	}
	if revision >= "2026-07-28" || !often() {
		h.Set("Mcp-Method", "tools/call")
		h.Set("Mcp-Name", tool)
		if !often() {
			h.Set(pick("Mcp-Method", "Mcp-Name"), pick("tools/list", "sales", ""))
		}
	}
	if rng.IntN(20) == 0 {
		h.Set("Last-Event-ID", "1")
	}

	params := []string{fmt.Sprintf(`"name":%q`, tool)}
	if as := directArguments[tool]; len(as) > 0 && often() {
		params = append(params, `"arguments":`+as[rng.IntN(len(as))])
	} else if !often() {
		params = append(params, `"arguments":`+pick(`null`, `[]`, `"x"`, `{}`))
	}
	meta := ""
	switch {
	case revision >= "2026-07-28" && often():
		meta = `"io.modelcontextprotocol/protocolVersion":"` + revision + `","io.modelcontextprotocol/clientCapabilities":` +
			pick(`{}`, `{}`, `{"roots":{"listChanged":true}}`, `{"sampling":{}}`, `{"roots":5}`)
		if !often() {
			meta += `,"io.modelcontextprotocol/clientInfo":` + pick(`{"name":"c","version":"1"}`, `{"name":5}`, `"x"`)
		}
		if !often() {
			meta += `,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`
		}
	case revision >= "2026-07-28":
		meta = pick(`"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}`,
			`"io.modelcontextprotocol/clientCapabilities":{}`, `"progressToken":1`)
	case often():
		meta = pick("", "", `"progressToken":7`, `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`)
	}
	if meta != "" || !often() {
		params = append(params, `"_meta":{`+meta+`}`)
	}
	if rng.IntN(20) == 0 {
		params = append(params, `"extra":1`)
	}
	rng.Shuffle(len(params), func(i, j int) { params[i], params[j] = params[j], params[i] })

	id := `1`
	if !often() {
		id = pick(`42`, `"abc-1"`, `"a b"`, `1.5`, `null`, `-3`, `0`, `"\u003c"`)
	}
	fields := []string{`"jsonrpc":"2.0"`, `"id":` + id, `"method":"tools/call"`, `"params":{` + strings.Join(params, ",") + `}`}
	if !often() {
		fields[rng.IntN(len(fields))] = pick(`"jsonrpc":"1.0"`, `"Method":"tools/call"`, `"id":{}`, `"method":"tools/list"`, `"params":[]`)
	}
	if rng.IntN(20) == 0 {
		fields = append(fields, `"extra":true`)
	}
	rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return rawCall{header: h, body: "{" + strings.Join(fields, ",") + "}"}
}
