package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/reports"
	"plumbline/reports/ask"
)

const marker = "zq9MARKERzq9"

// records keeps what the engine hands to the request log.
type records struct {
	mu  sync.Mutex
	got []ask.Record
}

func (r *records) Admit(_ context.Context, rec *ask.Record) (time.Duration, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, *rec)
	return 0, nil
}

func (r *records) Finish(_ context.Context, rec *ask.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, *rec)
}

// Whatever a caller sends, and wherever, it never comes back in an answer
// and never reaches a log line or the request log as typed.
func TestCallerTextIsNeverEchoedOrLogged(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	rec := &records{}
	f := newFloorWith(t, func(o *reports.Options) {
		o.Logger = slog.New(slog.NewJSONHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
		o.Recorder = rec
	})
	cs := f.client(t)
	m := marker
	calls := map[string][]string{
		"sales": {
			`{"who":{"team":"` + m + `"},"period":{"named":"last_week"}}`,
			`{"who":{"agent":"` + m + `"},"period":{"named":"last_week"}}`,
			`{"who":{"agent":"Maria ` + m + `"},"period":{"named":"last_week"}}`,
			`{"who":{"floor":true},"period":{"named":"` + m + `"}}`,
			`{"who":{"floor":true},"period":{"day":"` + m + `"}}`,
			`{"who":{"floor":true},"period":{"week":"` + m + `"}}`,
			`{"who":{"floor":true},"period":{"start":"` + m + `","end":"2026-11-01"}}`,
			`{"who":{"floor":true},"period":{"named":"last_week"},"metrics":["` + m + `"]}`,
			`{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"` + m + `"}`,
			`{"who":{"floor":true},"period":{"named":"last_week"},"sort":{"metric":"` + m + `"}}`,
			`{"who":{"floor":true},"period":{"named":"last_week"},"sort":{"metric":"close_rate","direction":"` + m + `"}}`,
			`{"who":{"floor":true},"period":{"named":"last_week"},"top_n":"` + m + `"}`,
			`{"who":{"floor":true},"period":{"named":"last_week"},"compact":"` + m + `"}`,
			`{"who":{"floor":true},"period":{"named":"last_week"},"known_definitions":"` + m + `"}`,
			`{"who":{"floor":true},"period":{"named":"last_week"},"` + m + `":1}`,
			`{"who":{"floor":true,"` + m + `":1},"period":{"named":"last_week"}}`,
			`{"who":{"floor":true},"period":{"named":"last_week","` + m + `":1}}`,
			`"` + m + `"`,
		},
		"hours":              {`{"who":{"team":"` + m + `"},"period":{"named":"last_week"},"compare_counts":true}`},
		"quality":            {`{"who":{"floor":true},"period":{"named":"last_week"},"metrics":["audits","` + m + `"]}`},
		"roster":             {`{"who":{"agent":"` + m + `"}}`, `{"who":{"floor":true},"day":"` + m + `"}`, `{"who":{"floor":true},"` + m + `":"` + m + `"}`},
		"find_people":        {`{"query":"` + m + `"}`, `{"query":"` + m + `@floor.example"}`, `{"name":"` + m + `"}`},
		"freshness":          {`{"` + m + `":"` + m + `"}`},
		"health":             {`{"` + m + `":"` + m + `"}`},
		"metric_definitions": {`{"metrics":["` + m + `"]}`},
		"team_day":           {`{"who":{"team":"` + m + `"}}`, `{"who":{"floor":true},"period":{"named":"` + m + `"}}`, `{"who":{"agent":"` + m + `"}}`},
		"team_weeks":         {`{"who":{"agent":"` + m + `"}}`, `{"who":{"floor":true},"weeks":"` + m + `"}`},
		"league": {
			`{"period":{"named":"last_week"},"metrics":["` + m + `"]}`,
			`{"period":{"named":"last_week"},"sort":{"metric":"` + m + `"}}`,
			`{"period":{"day":"` + m + `"}}`,
		},
	}
	n := 0
	for tool, argsList := range calls {
		for _, args := range argsList {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
			if err != nil {
				// The SDK itself refuses arguments that are not an object.
				if strings.Contains(err.Error(), marker) {
					t.Errorf("%s %s: the protocol error repeats the caller's text: %v", tool, args, err)
				}
				continue
			}
			n++
			text := res.Content[0].(*mcp.TextContent).Text
			if strings.Contains(text, marker) {
				t.Errorf("%s %s: the answer repeats the caller's text:\n%s", tool, args, text)
			}
			var body map[string]any
			json.Unmarshal([]byte(text), &body)
			if e, ok := body["error"].(map[string]any); ok && (e["argument"] == nil || e["rule"] == "" || e["choices"] == nil) {
				t.Errorf("%s %s: a refusal without argument, rule and choices: %v", tool, args, e)
			}
		}
	}
	mu.Lock()
	if strings.Contains(logs.String(), marker) {
		t.Errorf("a log line repeats the caller's text:\n%s", logs.String())
	}
	mu.Unlock()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.got) < 2*n {
		t.Errorf("%d calls put %d records on the log, want a start and an end for each", n, len(rec.got))
	}
	for _, r := range rec.got {
		if strings.Contains(string(r.Arguments), marker) {
			t.Errorf("the request log keeps the caller's text: %s", r.Arguments)
		}
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
