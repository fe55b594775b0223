//lint:file-ignore SA1019 MCP logging is deprecated as of the 2026-07-28 revision, but clients of the earlier revisions still read it.

package mcpserver

import (
	"context"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/reports"
	"plumbline/reports/ask"
)

// advertiseLogging declares MCP logging: a client that sets a level
// (logging/setLevel, or the level in a request's _meta) hears how each call
// went. The go-sdk keeps the level and drops what is below it.
func advertiseLogging(caps *mcp.ServerCapabilities) {
	caps.Logging = &mcp.LoggingCapabilities{}
}

// loggingLevels are the levels of MCP logging (RFC 5424's), least severe
// first.
var loggingLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// knownLevel refuses a logging/setLevel whose level is not one of
// loggingLevels: the go-sdk keeps any string, and reads one it does not
// know as debug, the most a client can hear.
func knownLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && method == "logging/setLevel" && !slices.Contains(loggingLevels, string(p.Level)) {
			return nil, readError(&ask.Refusal{Code: ask.CodeInvalidArgument, Argument: "level",
				Rule: "is not a level of MCP logging; set one of the choices, from the least severe to the most.", Choices: loggingLevels})
		}
		return next(ctx, method, req)
	}
}

// logOutcome tells the client how a call went, at info when it was answered,
// warning when it was refused and error when the server could not answer:
// the request id, the tool, the outcome code, the rows, the time taken, and
// for a refusal plumbline's own rule, never the arguments. Only a client
// that holds a stream open for it hears it (stdio, or a session that
// answers in event streams); plumbline's HTTP transport answers each request
// with one JSON response, so over HTTP the request log is the record.
func logOutcome(ctx context.Context, req *mcp.CallToolRequest, ans *reports.Answer, took time.Duration) {
	ss, tool := req.Session, req.Params.Name
	if ss == nil || req.Extra != nil && req.Extra.Header != nil {
		return
	}
	level, outcome := mcp.LoggingLevel("info"), "ok"
	data := map[string]any{"request_id": ans.RequestID, "tool": tool, "rows": ans.Rows, "ms": took.Milliseconds()}
	if r := ans.Refusal; r != nil {
		level, outcome = "warning", r.Code
		switch r.Code {
		case ask.CodeUnavailable, ask.CodeBusy, ask.CodeTimeout, ask.CodeInternal:
			level = "error"
		}
		data["rule"] = r.Rule
		if r.Argument != "" {
			data["argument"] = r.Argument
		}
	} else if _, ok := ans.Body.(*reports.CandidatesAnswer); ok {
		outcome = "candidates"
	}
	data["outcome"] = outcome
	// A client that cannot hear it is no fault of the call's.
	_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "plumbline", Data: data})
}
