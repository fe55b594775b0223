package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/analyst"
	"plumbline/internal/scrub"
	"plumbline/internal/telemetry"
	"plumbline/reports"
	"plumbline/reports/ask"
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
		page, isPage := ans.Body.(*analyst.PageAnswer)
		if isPage {
			scrubPage(page)
		}
		body, err := json.Marshal(ans.Body)
		if err != nil {
			telemetry.EndCall(span, ans.RequestID, ask.CodeInternal, 0, true)
			return nil, err
		}
		if !isPage {
			// A refusal is plumbline's own text (its rule, the choices of
			// the allow-list), scrubbed whole but for its request id.
			body = scrub.JSON(body, ans.RequestID)
		}
		told := reportsAnswer(ans)
		logOutcome(ctx, req, told, time.Since(start))
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
func hideDoor(caller func(*mcp.CallToolRequest) ask.Caller) mcp.Middleware {
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

// scrubPage is the backstop on a page of the door's answer: the long
// digit runs of its column names and of its text values (package scrub)
// are cut, and those of no other value, for a number, a date, a time or an
// interval, written as text or not, is no phone or member number, and
// cutting it would falsify it. When anything was cut, a note says what and
// where, so that the agent never takes a cut value for what the database
// holds.
func scrubPage(p *analyst.PageAnswer) {
	names := false
	for i, c := range p.Columns {
		if s := scrub.String(c); s != c {
			p.Columns[i], names = s, true
		}
	}
	var cutColumns []string
	cutValues := 0
	for i, typ := range p.Types {
		if !textual(typ) {
			continue
		}
		before := cutValues
		for _, row := range p.Rows {
			var n int
			if row[i], n = scrub.Value(row[i]); n > 0 {
				cutValues++
			}
		}
		if cutValues > before {
			cutColumns = append(cutColumns, p.Columns[i])
		}
	}
	var where []string
	switch cutValues {
	case 0:
	case 1:
		where = append(where, "1 value (of the column "+cutColumns[0]+")")
	default:
		where = append(where, fmt.Sprintf("%d values (of the columns %s)", cutValues, strings.Join(cutColumns, ", ")))
	}
	if names {
		where = append(where, "the column names")
	}
	if len(where) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("plumbline's backstop against phone, member and policy numbers cut every run of %d or more digits "+
			"to its last %d in %s: what was cut is not as the database holds it, so never match, join or count on it. "+
			"Values that are not text (numbers, dates, times, intervals) are never cut.", scrub.MinRun, scrub.Keep, strings.Join(where, " and in ")))
	}
}

// textual reports whether a column of a PostgreSQL type (as the door names
// it) holds text the backstop cuts: character types, JSON (whose strings
// are text; its numbers stay), arrays of them, and a type the door does not
// know, which it sends as text.
func textual(typ string) bool {
	switch strings.TrimPrefix(typ, "_") {
	case "text", "varchar", "bpchar", "char", "name", "json", "jsonb", "unknown":
		return true
	}
	return false
}

// reportsAnswer is how a door's answer is told to the client's log.
func reportsAnswer(ans *analyst.Answer) *reports.Answer {
	out := &reports.Answer{RequestID: ans.RequestID, Rows: ans.Rows, Body: ans.Body}
	if r, ok := ans.Body.(*analyst.RefusalAnswer); ok {
		out.Refusal = &ask.Refusal{Code: r.Error.Code, Argument: r.Error.Argument, Rule: r.Error.Rule, Choices: r.Error.Choices}
	}
	return out
}
