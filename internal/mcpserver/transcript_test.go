package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/signin"
)

// Protocol transcripts: each testdata/transcripts/*.txtar is a conversation
// with the whole HTTP surface (the authorization server's bearer check in
// front of the stateless Streamable HTTP endpoint, over the demo floor at
// pgtest.Now), as go-sdk's conformance tests record theirs. An archive is
//
//	prose saying what it guards
//	-- auth --    "service" (a service token with the reports scope),
//	              "made-up" (a token the server never issued) or "none"
//	-- client --  the JSON-RPC messages POSTed to /mcp, one after another
//	-- server --  what each POST got back: its status, its WWW-Authenticate
//	              challenge if any, and its JSON body if any
//
// Run with -update to rewrite the -- server -- sections; review the change
// as a change of the protocol contract.
//
// Masked, because they vary from run to run and nothing relies on their
// value: the request id of every answer (written REQUEST_ID, wherever it
// appears, in structured content and in text) and the server's loopback
// address (written http://BASE). Nothing else is masked: the figures come
// from the demo floor generated at a fixed moment, which the engine is
// answered as of.

var updateTranscripts = flag.Bool("update", false, "rewrite the -- server -- sections of testdata/transcripts/*.txtar")

// exchange is one POST's outcome, as a -- server -- section records it.
type exchange struct {
	Status    int    `json:"status"`
	Challenge string `json:"www_authenticate,omitempty"`
	Body      any    `json:"body,omitempty"`
}

func TestTranscripts(t *testing.T) {
	paths, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	surface := newSurface(t)
	checked := 0
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			archive, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for _, f := range archive.Files {
				files[f.Name] = f.Data
			}
			token := ""
			switch auth := strings.TrimSpace(string(files["auth"])); auth {
			case "service":
				token = surface.token
			case "made-up":
				token = "plb_made-up-token"
			case "none":
			default:
				t.Fatalf("-- auth -- is %q, want service, made-up or none", auth)
			}
			var got bytes.Buffer
			var exchanges []exchange
			dec := json.NewDecoder(bytes.NewReader(files["client"]))
			protocol := ""
			for dec.More() {
				var msg json.RawMessage
				if err := dec.Decode(&msg); err != nil {
					t.Fatalf("-- client --: %v", err)
				}
				ex := surface.post(t, token, protocol, msg)
				if v, ok := field(ex.Body, "result", "protocolVersion").(string); ok {
					protocol = v // later requests name the revision negotiated
				}
				exchanges = append(exchanges, ex)
				b, _ := json.MarshalIndent(ex, "", "\t")
				got.Write(b)
				got.WriteByte('\n')
			}
			checked += checkFigures(t, surface, files["client"], exchanges)
			if *updateTranscripts {
				for i := range archive.Files {
					if archive.Files[i].Name == "server" {
						archive.Files[i].Data = got.Bytes()
					}
				}
				if files["server"] == nil {
					archive.Files = append(archive.Files, txtar.File{Name: "server", Data: got.Bytes()})
				}
				if err := os.WriteFile(path, txtar.Format(archive), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal(got.Bytes(), files["server"]) {
				t.Errorf("the server's answers differ from -- server -- of %s (run with -update to rewrite it after review):\n%s",
					path, firstDifference(string(files["server"]), got.String()))
			}
		})
	}
	if checked == 0 {
		t.Error("no transcript holds a figure checked against the raw table")
	}
}

// surface is plumbline's HTTP surface over a test's demo floor.
type surface struct {
	floor *floor
	base  string
	token string // a service token with the reports scope
}

func newSurface(t *testing.T) *surface {
	t.Helper()
	f := newFloor(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := mcpserver.New(f.engine, &mcpserver.Options{Logger: quiet, Caller: oauth.Caller(f.engine.ToolNames())})
	tokens := oauth.NewStore(f.store.Pool(), "")
	ts := httptest.NewUnstartedServer(nil)
	t.Cleanup(ts.Close)
	s := &surface{floor: f, base: "http://" + ts.Listener.Addr().String()}
	auth, err := oauth.New(oauth.Config{BaseURL: s.base, Logger: quiet}, tokens, signin.NewDev(tokens))
	if err != nil {
		t.Fatal(err)
	}
	if s.token, _, err = tokens.CreateServiceToken(context.Background(), auth.Config(), "transcripts", oauth.ServiceScopes, time.Hour); err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = auth.Handler(mcpserver.StreamableHTTP(srv))
	ts.Start()
	return s
}

var requestID = regexp.MustCompile(`"request_id":\s*"([0-9a-f]+)"`)

// post sends one JSON-RPC message and records what came back, masked.
func (s *surface) post(t *testing.T, token, protocol string, msg json.RawMessage) exchange {
	t.Helper()
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	if protocol != "" {
		h.Set("Mcp-Protocol-Version", protocol)
	}
	resp, text := s.do(t, h, msg)
	ex := exchange{Status: resp.StatusCode, Challenge: strings.ReplaceAll(resp.Header.Get("WWW-Authenticate"), s.base, "http://BASE")}
	if strings.TrimSpace(text) != "" {
		if err := json.Unmarshal([]byte(text), &ex.Body); err != nil {
			ex.Body = text
		}
	}
	return ex
}

// do POSTs body to /mcp with header h and returns the response and its
// body, with the server's address and every request id masked.
func (s *surface) do(t *testing.T, h http.Header, body []byte) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.base+"/mcp", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), s.base, "http://BASE")
	for _, m := range requestID.FindAllStringSubmatch(text, -1) {
		text = strings.ReplaceAll(text, m[1], "REQUEST_ID")
	}
	return resp, text
}

// checkFigures holds every submitted_sales figure a transcript's report
// calls for one agent over named days returned to a sum computed in SQL from
// the raw table, so a transcript never becomes its own oracle for figures.
// It returns how many it checked.
func checkFigures(t *testing.T, s *surface, client []byte, exchanges []exchange) int {
	t.Helper()
	checked := 0
	dec := json.NewDecoder(bytes.NewReader(client))
	for i := 0; dec.More(); i++ {
		var msg struct {
			Params struct {
				Name      string
				Arguments json.RawMessage
			}
		}
		if err := dec.Decode(&msg); err != nil {
			t.Fatal(err)
		}
		var a struct {
			Who     struct{ Agent string }
			Period  struct{ Start, End string }
			Metrics []string
		}
		json.Unmarshal(msg.Params.Arguments, &a) // arguments that are not an object check nothing
		if msg.Params.Name != "sales" || a.Who.Agent == "" || a.Period.Start == "" || len(a.Metrics) != 1 || a.Metrics[0] != "submitted_sales" {
			continue
		}
		var want float64
		if err := s.floor.sql.QueryRow(context.Background(), `SELECT coalesce(sum(submitted), 0) FROM metrics.agent_sales_daily
			WHERE agent_key = $1 AND day BETWEEN $2 AND $3`, a.Who.Agent, a.Period.Start, a.Period.End).Scan(&want); err != nil {
			t.Fatal(err)
		}
		rows, _ := field(exchanges[i].Body, "result", "structuredContent", "rows").([]any)
		if len(rows) != 1 || fmt.Sprint(field(rows[0], 0)) != fmt.Sprint(want) {
			t.Errorf("call %d: rows %v, want submitted_sales %v from the raw table", i+1, rows, want)
		}
		checked++
	}
	return checked
}

// field digs into decoded JSON by object keys and array indexes; nil when
// the path is not there.
func field(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// firstDifference shows a few lines of each text from the first line that
// differs.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "from line %d:\n", i+1)
	for k := i; k < min(i+8, len(w)); k++ {
		b.WriteString("-" + w[k] + "\n")
	}
	for k := i; k < min(i+8, len(g)); k++ {
		b.WriteString("+" + g[k] + "\n")
	}
	return b.String()
}
