package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/analyst"
	"plumbline/internal/scrub"
	"plumbline/internal/telemetry"
	"plumbline/reports"
)

// This file offers the analyst's door. The go-sdk serves one tool list per
// server, so the door is one server's tool for every caller, hidden from
// tools/list for every caller the door does not allow (a receiving
// middleware filters the list by the caller the token names) and refusing
// them when called by name. The door itself decides who it allows, on
// every call.

// addDoor registers the sql tool and hides it from callers it does not
// allow.
func addDoor(srv *mcp.Server, engine *reports.Engine, o Options) {
	door := o.Analyst
	t := door.Tool()
	closed := false
	srv.AddTool(&mcp.Tool{
		Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
		Annotations: &mcp.ToolAnnotations{Title: t.Title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		ctx, timed := timing(ctx)
		ctx, span := telemetry.StartCall(ctx, t.Name, req.Params.Meta, timed)
		ans := door.Call(ctx, o.Caller(req), req.Params.Arguments)
		body, err := json.Marshal(ans.Body)
		if err != nil {
			telemetry.EndCall(span, ans.RequestID, reports.CodeInternal, 0, true)
			return nil, err
		}
		body = scrub.JSON(body, keepTokens(ans)...)
		told := reportsAnswer(ans)
		logOutcome(ctx, req.Session, t.Name, told, time.Since(start))
		count(o.Metrics, t.Name, told, timed, telemetry.LimitAnalystStatements)
		telemetry.EndCall(span, ans.RequestID, told.Outcome(), ans.Rows, fault(told))
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
			StructuredContent: json.RawMessage(body),
			IsError:           ans.Refused,
		}, nil
	})
	srv.AddReceivingMiddleware(hideDoor(o.Caller))
}

// hideDoor drops the sql tool from tools/list for callers the door does not
// allow.
func hideDoor(caller func(*mcp.CallToolRequest) reports.Caller) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			list, ok := res.(*mcp.ListToolsResult)
			if method != "tools/list" || err != nil || !ok {
				return res, err
			}
			if analyst.Allowed(caller(&mcp.CallToolRequest{Extra: req.GetExtra()})) {
				return res, nil
			}
			shown := *list
			shown.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool { return t.Name == analyst.ToolName })
			return &shown, nil
		}
	}
}

// keepTokens are the door's own identifiers in an answer, which the
// scrubber leaves whole.
func keepTokens(ans *analyst.Answer) []string {
	keep := []string{ans.RequestID}
	if p, ok := ans.Body.(*analyst.PageAnswer); ok {
		keep = append(keep, p.Fingerprint)
	}
	return keep
}

// reportsAnswer is how a door's answer is told to the client's log.
func reportsAnswer(ans *analyst.Answer) *reports.Answer {
	out := &reports.Answer{RequestID: ans.RequestID, Rows: ans.Rows, Body: ans.Body}
	if r, ok := ans.Body.(*analyst.RefusalAnswer); ok {
		out.Refusal = &reports.Refusal{Code: r.Error.Code, Argument: r.Error.Argument, Rule: r.Error.Rule, Choices: r.Error.Choices}
	}
	return out
}
