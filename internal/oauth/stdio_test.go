package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/servetest"
	"plumbline/reports/ask"
)

// Over stdio one token from the environment speaks for the whole process,
// as serve --transport stdio runs it: a person removed from the directory
// mid-session is told on their next call that the token no longer holds
// and what to do, as plumbline's refusal, never that the server is
// unavailable and to try again.
func TestStdioTellsARemovedPersonTheirAccessEnded(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	token, _, err := e.store.CreatePersonToken(ctx, e.server.Config(), ravi.PersonID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.server.Verify(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	served := servetest.New(t, e.db, &servetest.Options{Server: func(o *mcpserver.Options, f *servetest.Floor) {
		caller := oauth.IdentityCaller(id, f.Engine.ToolNames())
		o.Caller = func(*mcp.CallToolRequest) ask.Caller { return caller }
	}})
	served.Server.AddReceivingMiddleware(e.server.Recheck(token))
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- served.Server.Run(sctx, mcpserver.Stdio(serverIn, serverOut)) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); stop(); serverIn.Close(); <-done })
	definitions := &mcp.CallToolParams{Name: "metric_definitions", Arguments: json.RawMessage(`{}`)}
	if res, err := cs.CallTool(ctx, definitions); err != nil || res.IsError {
		t.Fatalf("an active member over stdio: %v %v", res, err)
	}
	e.exec("UPDATE plumbline.members SET status = 'removed' WHERE person_id = $1", ravi.PersonID)
	_, err = cs.CallTool(ctx, definitions)
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("a removed member over stdio: %v, want plumbline's refusal", err)
	}
	var r ask.Refusal
	json.Unmarshal(je.Data, &r)
	if r.Code != ask.CodeUnauthenticated || !strings.Contains(r.Rule, "left the directory") || !strings.Contains(r.Rule, "new token") {
		t.Errorf("a removed member over stdio was told %q (%s)", je.Message, je.Data)
	}
}
