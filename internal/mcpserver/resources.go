package mcpserver

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/reports"
	"plumbline/reports/ask"
)

// The resources plumbline offers beside its tools, for clients that let a
// person attach context to a conversation: every metric's definition and a
// team's roster. Each read is answered as the tool call it stands for
// (metric_definitions, roster), so it carries the same texts and is put on
// record, held to the limit and allowed or refused like that call.
const (
	metricsURI     = "plumbline://metrics"
	metricTemplate = metricsURI + "/{metric}"
	teamsURI       = "plumbline://teams"
	teamTemplate   = teamsURI + "/{team}"
	jsonMIME       = "application/json"
)

// maxCompletions is the most values one completion answer carries (the
// protocol's own limit).
const maxCompletions = 100

// addResources offers the metric definitions, one resource per metric and
// one for them all, and the templates a client completes: a metric by id and
// a team by key or name.
func addResources(srv *mcp.Server, engine *reports.Engine, o Options) {
	cat := engine.Catalog()
	read := readMetric(engine, o)
	srv.AddResource(&mcp.Resource{URI: metricsURI, Name: "metrics", Title: "Metric definitions", MIMEType: jsonMIME,
		Description: "Every metric's definition, formula, source relation, counting basis and settle rule: the metric_definitions tool's answer."}, read)
	for _, m := range cat.Metrics() {
		srv.AddResource(&mcp.Resource{URI: metricsURI + "/" + m.ID, Name: m.ID, Title: m.Label, MIMEType: jsonMIME,
			Description: m.Definition()}, read)
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: metricTemplate, Name: "metric", Title: "A metric's definition",
		MIMEType: jsonMIME, Description: "One metric's definition, formula, source relation, counting basis and settle rule, by metric id."}, read)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: teamTemplate, Name: "team", Title: "A team's roster today",
		MIMEType: jsonMIME, Description: "Who is on a team today, whether it counts as part of the sales floor, who decided that and why: " +
			"the roster tool's answer for the team, by team key or name."}, readTeam(engine, o))
}

// readMetric answers plumbline://metrics with every definition and
// plumbline://metrics/ID with one.
func readMetric(engine *reports.Engine, o Options) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		args := json.RawMessage(`{}`)
		if id, ok := strings.CutPrefix(req.Params.URI, metricsURI+"/"); ok {
			if _, known := engine.Catalog().Metric(id); !known {
				return nil, readError(&ask.Refusal{Code: ask.CodeInvalidArgument, Argument: "metric",
					Rule: "is not a metric id of the catalogue.", Choices: metricIDs(engine)})
			}
			args, _ = json.Marshal(map[string][]string{"metrics": {id}})
		}
		return readAs(ctx, engine, o, req, "metric_definitions", args, "")
	}
}

// readTeam answers plumbline://teams/TEAM with the team's roster today.
func readTeam(engine *reports.Engine, o Options) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		team, _ := strings.CutPrefix(req.Params.URI, teamsURI+"/")
		team, err := url.PathUnescape(team)
		if err != nil || team == "" || strings.Contains(team, "/") {
			return nil, readError(&ask.Refusal{Code: ask.CodeInvalidArgument, Argument: "team",
				Rule: "must be one team key or name, percent-encoded; completion offers the keys.", Choices: []string{}})
		}
		args, _ := json.Marshal(map[string]any{"who": map[string]string{"team": team}})
		return readAs(ctx, engine, o, req, "roster", args, "who.team")
	}
}

// readAs answers a resource read as a call of tool. A refusal becomes the
// read's error; argument, if set, is the tool's name for the URI's variable.
func readAs(ctx context.Context, engine *reports.Engine, o Options, req *mcp.ReadResourceRequest, tool string,
	args json.RawMessage, argument string) (*mcp.ReadResourceResult, error) {
	call := &mcp.CallToolRequest{Session: req.Session, Extra: req.Extra, Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: args}}
	start := time.Now()
	ans, body, err := answer(ctx, engine, o, call)
	if err != nil {
		return nil, err
	}
	logOutcome(ctx, call, ans, time.Since(start))
	if r := ans.Refusal; r != nil {
		if argument != "" && r.Argument == argument {
			r.Argument = strings.TrimPrefix(argument, "who.")
		}
		return nil, readError(r)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: jsonMIME, Text: string(body)}}}, nil
}

// readError is a refused read as a JSON-RPC error: plumbline's teaching
// error, its refusal as the data. A bad argument is invalid params (as a
// resource that does not exist is, by the protocol); anything else is the
// server's fault. The URI is never repeated.
func readError(r *ask.Refusal) error {
	code := int64(jsonrpc.CodeInternalError)
	if r.Code == ask.CodeInvalidArgument {
		code = jsonrpc.CodeInvalidParams
	}
	if r.Choices == nil {
		r.Choices = []string{}
	}
	data, _ := json.Marshal(r)
	return &jsonrpc.Error{Code: code, Message: r.Error(), Data: data}
}

// complete offers metric ids and team keys for the templates' variables, and
// no values for anything else (plumbline has no prompts).
func complete(engine *reports.Engine) func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		var argument string
		switch p := req.Params; {
		case p.Ref.Type == "ref/resource" && p.Ref.URI == metricTemplate && p.Argument.Name == "metric":
			argument = reports.CompleteMetric
		case p.Ref.Type == "ref/resource" && p.Ref.URI == teamTemplate && p.Argument.Name == "team":
			argument = reports.CompleteTeam
		}
		values, total, err := engine.Complete(ctx, argument, req.Params.Argument.Value, maxCompletions)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the directory could not be read; try again in a minute"}
		}
		if values == nil {
			values = []string{}
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: total, HasMore: total > len(values)}}, nil
	}
}

func metricIDs(engine *reports.Engine) []string {
	var ids []string
	for _, m := range engine.Catalog().Metrics() {
		ids = append(ids, m.ID)
	}
	return ids
}
