package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"plumbline/internal/telemetry"
)

// One call's span continues the client's trace named in the call's _meta
// (SEP-414); beneath it are the request log's span and the report's, each
// with the statements it ran, as plumbline wrote them; and no attribute of
// any span carries a value the caller sent.
func TestCallSpanContinuesTheClientsTrace(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	telemetry.UseTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)))
	t.Cleanup(func() { telemetry.UseTracerProvider(nil) })
	f := newFloor(t) // its pools open with tracing on
	cs := f.client(t)
	ctx := context.Background()
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sales", Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + parentID + "-01"},
		Arguments: json.RawMessage(`{"who":{"team":"Falcons"},"period":{"start":"2026-11-02","end":"2026-11-08"},"group_by":"agent"}`)})
	if err != nil || res.IsError {
		t.Fatalf("sales: %v %v", res, err)
	}
	var answer struct {
		RequestID string `json:"request_id"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &answer)

	spans := exp.GetSpans()
	var call *tracetest.SpanStub
	for i := range spans {
		if spans[i].Name == "tools/call sales" {
			call = &spans[i]
		}
	}
	if call == nil {
		t.Fatalf("no span of the call among %d", len(spans))
	}
	if call.Parent.TraceID().String() != traceID || call.Parent.SpanID().String() != parentID || !call.Parent.IsRemote() {
		t.Errorf("the call's parent is %v, want span %s of trace %s from the client", call.Parent, parentID, traceID)
	}
	if call.SpanKind != trace.SpanKindServer {
		t.Errorf("the call's span is of kind %v", call.SpanKind)
	}
	attrs := map[string]string{}
	for _, a := range call.Attributes {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs["plumbline.request_id"] != answer.RequestID || attrs["plumbline.outcome"] != "ok" || attrs["gen_ai.tool.name"] != "sales" {
		t.Errorf("the call's attributes: %v (the answer's request_id %s)", attrs, answer.RequestID)
	}
	children := func(parent trace.SpanContext) map[string][]tracetest.SpanStub {
		out := map[string][]tracetest.SpanStub{}
		for _, s := range spans {
			if s.Parent.SpanID() == parent.SpanID() && s.SpanContext.TraceID() == parent.TraceID() {
				out[s.Name] = append(out[s.Name], s)
			}
		}
		return out
	}
	stages := children(call.SpanContext)
	if len(stages["request_log"]) != 1 || len(stages["report_sql"]) < 1 {
		t.Fatalf("the call's children: %v", names(stages))
	}
	statements := children(stages["request_log"][0].SpanContext)
	if !hasStatement(statements["INSERT"], "INSERT INTO plumbline.request_log") {
		t.Errorf("the request log's span has no statement putting the call on record: %v", names(statements))
	}
	var reads int
	for _, rs := range stages["report_sql"] {
		for _, s := range children(rs.SpanContext)["SELECT"] {
			if s.SpanKind == trace.SpanKindClient && !s.EndTime.Before(s.StartTime) {
				reads++
			}
		}
	}
	if reads == 0 {
		t.Errorf("the report's spans hold no SELECT")
	}
	for _, s := range spans {
		for _, a := range s.Attributes {
			if strings.Contains(strings.ToLower(a.Value.String()), "falcons") {
				t.Errorf("span %s carries an argument's value in %s: %s", s.Name, a.Key, a.Value.String())
			}
		}
	}

	// A call without a traceparent starts a trace of its own.
	exp.Reset()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "health", Arguments: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	for _, s := range exp.GetSpans() {
		if s.Name == "tools/call health" && (s.Parent.IsValid() || s.SpanContext.TraceID().String() == traceID) {
			t.Errorf("a call without a traceparent joined trace %v", s.Parent)
		}
	}
}

func names(m map[string][]tracetest.SpanStub) []string {
	var out []string
	for n, s := range m {
		out = append(out, fmt.Sprintf("%s×%d", n, len(s)))
	}
	return out
}

func hasStatement(spans []tracetest.SpanStub, text string) bool {
	for _, s := range spans {
		for _, a := range s.Attributes {
			if a.Key == "db.query.text" && strings.HasPrefix(a.Value.AsString(), text) {
				return true
			}
		}
	}
	return false
}
