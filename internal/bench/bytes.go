package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/oauth"
)

// This file measures what a model reads: for each tool, the bytes of an
// answer's text block, of its structured content and of the whole JSON-RPC
// response on the wire, and how many of them are figures, on a first call,
// with compact and with known_definitions (the catalog_version of the first
// call), and the bytes of tools/list.

// ByteCall is one call whose bytes are measured.
type ByteCall struct {
	Label string `json:"label"`
	Tool  string `json:"tool"`
	Args  string `json:"arguments"`
	// Modes says the call also takes compact and known_definitions.
	Modes bool `json:"-"`
}

// ByteCalls are the calls the bytes are measured on: every tool, each
// report tool grouped, and at the row cap. $START and $END stand for the
// first and last day of the four whole weeks before this one.
var ByteCalls = []ByteCall{
	{"sales, the floor by team, last week", "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team"}`, true},
	{"sales, a team by week, 4 whole weeks", "sales", `{"who":{"team":"hawks"},"period":{"start":"$START","end":"$END"},"group_by":"week"}`, true},
	{"hours, an agent by day, last week", "hours", `{"who":{"agent":"a005"},"period":{"named":"last_week"},"group_by":"day"}`, true},
	{"quality, a team by week, 4 whole weeks", "quality", `{"who":{"team":"hawks"},"period":{"start":"$START","end":"$END"},"group_by":"week"}`, true},
	{"team_day, a team, yesterday", "team_day", `{"who":{"team":"hawks"}}`, true},
	{"team_weeks, a team", "team_weeks", `{"who":{"team":"hawks"}}`, true},
	{"league, last week", "league", `{"period":{"named":"last_week"}}`, true},
	{"sales, the floor by agent, every metric (row cap)", "sales",
		`{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"agent","metrics":["submitted_sales","close_rate","board_sales","approved_sales","approval_rate","sales_per_hour"]}`, true},
	{"hours, the floor by agent (row cap)", "hours", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"agent"}`, true},
	{"roster, a team", "roster", `{"who":{"team":"hawks"}}`, false},
	{"find_people", "find_people", `{"query":"maria"}`, false},
	{"freshness", "freshness", `{}`, false},
	{"metric_definitions", "metric_definitions", `{}`, false},
	{"health", "health", `{}`, false},
}

// Modes of a measured call.
const (
	ModeFirst   = "first call"
	ModeCompact = "compact"
	ModeKnown   = "known_definitions"
)

// BytesResult is a whole bytes run.
type BytesResult struct {
	ToolsList     int          `json:"tools_list_bytes"`      // the tools/list response
	ToolsListWire int          `json:"tools_list_wire_bytes"` // the same as sent
	Calls         []*CallBytes `json:"calls"`
}

// CallBytes are one call's bytes in one mode.
type CallBytes struct {
	Label string `json:"label"`
	Tool  string `json:"tool"`
	Mode  string `json:"mode"`
	// Text is the text block a client hands the model; Structured the
	// structuredContent; Response the whole JSON-RPC response, and Wire
	// its bytes as the server sent them (compressed, when it is 1 KiB or
	// more and the client accepts gzip, as clients' HTTP stacks do).
	Text       int `json:"text_bytes"`
	Structured int `json:"structured_bytes"`
	Response   int `json:"response_bytes"`
	Wire       int `json:"wire_bytes"`
	// TextFigures and StructuredFigures are the bytes of each block that
	// are figures: rows and section totals, people, teams, freshness dates.
	TextFigures       int `json:"text_figure_bytes"`
	StructuredFigures int `json:"structured_figure_bytes"`
}

// TextShare is the share of the text block that is figures.
func (c *CallBytes) TextShare() float64 { return share(c.TextFigures, c.Text) }

// StructuredShare is the share of the structured content that is figures.
func (c *CallBytes) StructuredShare() float64 { return share(c.StructuredFigures, c.Structured) }

// WireRatio is the wire's bytes over the structured content's.
func (c *CallBytes) WireRatio() float64 {
	if c.Structured == 0 {
		return 0
	}
	return float64(c.Wire) / float64(c.Structured)
}

func share(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

// MeasureBytes makes every call of ByteCalls against the server at url,
// which answers as of now in zone, in every mode it takes, and measures
// each answer's bytes.
func MeasureBytes(ctx context.Context, url, token string, now time.Time, zone *time.Location) (*BytesResult, error) {
	day := now.In(zone)
	monday := time.Date(day.Year(), day.Month(), day.Day()-(int(day.Weekday())+6)%7, 0, 0, 0, 0, time.UTC)
	weeks := strings.NewReplacer("$START", monday.AddDate(0, 0, -28).Format(time.DateOnly), "$END", monday.AddDate(0, 0, -1).Format(time.DateOnly))
	rec := &recording{next: oauth.BearerTransport(token, http.DefaultTransport)}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "plumbline-bench", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	res := &BytesResult{}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return nil, err
	}
	list, sent := rec.last()
	res.ToolsList, res.ToolsListWire = len(list), sent
	for _, c := range ByteCalls {
		c.Args = weeks.Replace(c.Args)
		first, err := callBytes(ctx, cs, rec, c, ModeFirst, c.Args)
		if err != nil {
			return nil, err
		}
		res.Calls = append(res.Calls, &first.CallBytes)
		if !c.Modes {
			continue
		}
		base := strings.TrimSuffix(c.Args, "}")
		for _, m := range [][2]string{{ModeCompact, base + `,"compact":true}`},
			{ModeKnown, base + `,"known_definitions":"` + first.version + `"}`}} {
			b, err := callBytes(ctx, cs, rec, c, m[0], m[1])
			if err != nil {
				return nil, err
			}
			res.Calls = append(res.Calls, &b.CallBytes)
		}
	}
	return res, nil
}

type measured struct {
	CallBytes
	version string
}

func callBytes(ctx context.Context, cs *mcp.ClientSession, rec *recording, c ByteCall, mode, args string) (*measured, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: json.RawMessage(args)})
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", c.Label, mode, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("%s (%s) was refused", c.Label, mode)
	}
	wire, sent := rec.last()
	var envelope struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(wire, &envelope); err != nil || len(envelope.Result.Content) == 0 {
		return nil, fmt.Errorf("%s (%s): the response is not a tool result: %v", c.Label, mode, err)
	}
	text, structured := envelope.Result.Content[0].Text, envelope.Result.StructuredContent
	var version struct {
		CatalogVersion string `json:"catalog_version"`
	}
	json.Unmarshal(structured, &version)
	m := &measured{CallBytes: CallBytes{Label: c.Label, Tool: c.Tool, Mode: mode,
		Text: len(text), Structured: len(structured), Response: len(wire), Wire: sent,
		StructuredFigures: FigureBytes(string(structured))}, version: version.CatalogVersion}
	if json.Valid([]byte(text)) {
		m.TextFigures = FigureBytes(text)
	} else {
		m.TextFigures = TextFigureBytes(text, structured)
	}
	return m, nil
}

// TextFigureBytes counts the bytes of a text block's figures: the lines of
// its CSV tables below their headers, each with its line break, for every
// table of the structured answer (rows with the section's total, people,
// roster teams). A table is found by its header, the answer's columns with
// each ratio's numerator and denominator columns folded into the ratio's;
// a table the text does not hold counts nothing.
func TextFigureBytes(text string, structured json.RawMessage) int {
	var a struct {
		Columns  []string   `json:"columns"`
		Rows     [][]any    `json:"rows"`
		Sections []struct { // canned reports
			Columns []string `json:"columns"`
			Rows    [][]any  `json:"rows"`
			Total   []any    `json:"total"`
		} `json:"sections"`
		Teams  []map[string]any `json:"teams"`
		People []map[string]any `json:"people"`
	}
	if json.Unmarshal(structured, &a) != nil {
		return 0
	}
	type table struct {
		header string
		rows   int
	}
	tables := []table{{csvLine(foldRatios(a.Columns)), len(a.Rows)}}
	for _, s := range a.Sections {
		n := len(s.Rows)
		if s.Total != nil {
			n++
		}
		tables = append(tables, table{csvLine(foldRatios(s.Columns)), n})
	}
	lines := strings.SplitAfter(text, "\n")
	rowsBelow := func(at, rows int) int {
		n := 0
		for i := at + 1; at >= 0 && i < len(lines) && i <= at+rows; i++ {
			n += len(lines[i])
		}
		return n
	}
	n := 0
	for _, t := range tables {
		if t.rows > 0 && t.header != "" {
			n += rowsBelow(slices.IndexFunc(lines, func(l string) bool { return strings.TrimSuffix(l, "\n") == t.header }), t.rows)
		}
	}
	// Objects (people, roster teams) are tables whose header names every
	// field of the first object.
	for _, objects := range [][]map[string]any{a.Teams, a.People} {
		if len(objects) == 0 {
			continue
		}
		n += rowsBelow(slices.IndexFunc(lines, func(l string) bool {
			cells, err := csv.NewReader(strings.NewReader(l)).Read()
			return err == nil && len(cells) > 2 && !slices.ContainsFunc(keysOf(objects[0]), func(k string) bool { return !slices.Contains(cells, k) })
		}), len(objects))
	}
	return n
}

// foldRatios drops the numerator and denominator columns that follow their
// ratio's column.
func foldRatios(columns []string) []string {
	var out []string
	for _, c := range columns {
		if base, ok := strings.CutSuffix(c, "_numerator"); ok && slices.Contains(out, base) {
			continue
		}
		if base, ok := strings.CutSuffix(c, "_denominator"); ok && slices.Contains(out, base) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// keysOf lists an object's keys.
func keysOf(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func csvLine(cells []string) string {
	if len(cells) == 0 {
		return ""
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(cells)
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// recording is an HTTP transport that keeps the body of the last POST's
// response.
type recording struct {
	next http.RoundTripper
	mu   sync.Mutex
	body []byte // the last response's body, decoded
	sent int    // its bytes as they came over the wire
}

// RoundTrip asks for gzip itself, as a client's HTTP stack does, so that
// the transport hands over the body as it came and its size can be told
// apart from the decoded one.
func (r *recording) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost {
		req = req.Clone(req.Context())
		req.Header.Set("Accept-Encoding", "gzip")
	}
	res, err := r.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return res, err
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	body := raw
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		if body, err = io.ReadAll(zr); err != nil {
			return nil, err
		}
		res.Header.Del("Content-Encoding")
		res.ContentLength = int64(len(body))
	}
	r.mu.Lock()
	r.body, r.sent = body, len(raw)
	r.mu.Unlock()
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res, nil
}

func (r *recording) last() (body []byte, sent int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.body, r.sent
}
