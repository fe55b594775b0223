package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/pgstore"
	"plumbline/internal/terminal"
	"plumbline/reports"
	"plumbline/reports/ask"
)

func askCommand(ctx context.Context, args []string, s *streams) error {
	f := newFlags("ask", helpText("ask"), s)
	url := f.string("url", "", "the server's MCP `endpoint`, e.g. http://127.0.0.1:8080/mcp")
	token := f.string("token", "", "bearer `token` to send to --url")
	db := f.string("db", "", "PostgreSQL connection `string`: run the engine here instead of asking a server")
	catalogDir := f.string("catalog", "", "catalogue `directory` with --db (default: the embedded demo catalogue)")
	nowFlag := f.string("now", "", "with --db, answer as of this RFC 3339 `moment` instead of the clock")
	asJSON := f.Bool("json", false, "print the answer's JSON as the server sends it")
	tool, raw, err := toolCall(f, args, s.in)
	if err != nil {
		return err
	}
	var body []byte
	var refused bool
	switch {
	case (*url == "") == (*db == ""):
		return fmt.Errorf("%w: give one of --url (a server) or --db (a database)", errUsage)
	case *url != "":
		body, refused, err = askServer(ctx, *url, *token, tool, raw)
	default:
		body, refused, err = askDatabase(ctx, *db, *catalogDir, *nowFlag, tool, raw)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		var b bytes.Buffer
		if err := json.Indent(&b, body, "", "  "); err != nil {
			return fmt.Errorf("the answer is not JSON: %w", err)
		}
		fmt.Fprintln(s.out, b.String())
	} else if err := terminal.Answer(body, s.out, s.err); err != nil {
		return err
	}
	if refused {
		return exitError{1}
	}
	return nil
}

// askServer calls a tool on a server over Streamable HTTP.
func askServer(ctx context.Context, url, token, tool string, raw json.RawMessage) ([]byte, bool, error) {
	var unauthorized atomic.Bool
	var rt http.RoundTripper = roundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err == nil && resp.StatusCode == http.StatusUnauthorized {
			unauthorized.Store(true)
		}
		return resp, err
	})
	if token != "" {
		rt = oauth.BearerTransport(token, rt)
	}
	client := &http.Client{Timeout: 2 * time.Minute, Transport: rt}
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client, MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "plumbline-ask", Version: mcpserver.Version}, nil).Connect(ctx, tr, nil)
	switch {
	case err != nil && unauthorized.Load() && token == "":
		return nil, false, fmt.Errorf("%s needs an access token: pass --token or set $PLUMBLINE_TOKEN. "+
			"plumbline demo prints one and keeps it in .plumbline/demo-token; "+
			"plumbline token create --service NAME --db DSN makes one for a service", url)
	case err != nil && unauthorized.Load():
		return nil, false, fmt.Errorf("%s refused the token (expired, revoked, or issued for another URL); "+
			"plumbline demo prints a new one, plumbline token create --service NAME --db DSN makes one for a service", url)
	case err != nil:
		return nil, false, fmt.Errorf("connect to %s: %w", url, err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: raw})
	if err != nil {
		return nil, false, fmt.Errorf("call %s: %w", tool, err)
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		return b, res.IsError, err
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return []byte(t.Text), res.IsError, nil
		}
	}
	return nil, res.IsError, errors.New("the server answered with no content")
}

// askDatabase answers a call with the engine in this process.
func askDatabase(ctx context.Context, dsn, catalogDir, nowFlag, tool string, raw json.RawMessage) ([]byte, bool, error) {
	cat, now, err := catalogAt(catalogDir, nowFlag)
	if err != nil {
		return nil, false, err
	}
	st, err := pgstore.Open(ctx, dsn, cat, nil)
	if err != nil {
		return nil, false, err
	}
	defer st.Close()
	engine := reports.New(cat, st, &reports.Options{Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)})
	ans := engine.Call(ctx, ask.Caller{Person: "terminal", Client: "plumbline ask"}, tool, raw)
	b, err := json.Marshal(ans.Body)
	return b, ans.Refusal != nil, err
}

// roundTripper is a func that is an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
