package telemetry

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// tracer records spans once a provider is in use (UseTracerProvider);
// until then it is nil and nothing is traced, at no cost.
var tracer atomic.Pointer[trace.Tracer]

// noSpan is what a span is while nothing is traced: it records nothing.
var noSpan = trace.SpanFromContext(context.Background())

// UseTracerProvider records plumbline's spans with tp from now on, or
// stops recording them when tp is nil.
func UseTracerProvider(tp trace.TracerProvider) {
	if tp == nil {
		tracer.Store(nil)
		return
	}
	t := tp.Tracer("plumbline")
	tracer.Store(&t)
}

// Tracing reports whether spans are recorded.
func Tracing() bool { return tracer.Load() != nil }

// TraceTo sends traces to an OpenTelemetry collector over OTLP/HTTP: to
// endpoint (a URL such as http://collector:4318) when it is set, else where
// the standard OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT variables say (with the exporter's
// other standard variables: headers, timeout, compression, certificates;
// and OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES for the resource). When
// none names one, nothing is traced. The func it returns sends what is
// still queued and stops.
func TraceTo(ctx context.Context, endpoint string, build Build) (func(context.Context) error, error) {
	if _, v := otlpEnv("ENDPOINT"); endpoint == "" && v == "" {
		return func(context.Context) error { return nil }, nil
	}
	c, err := collectorFor(endpoint)
	if err != nil {
		return nil, err
	}
	exp, err := otlptrace.New(ctx, c)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "plumbline"),
		attribute.String("service.version", build.Version), attribute.String("vcs.ref.head.revision", build.Commit)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	UseTracerProvider(tp)
	return func(ctx context.Context) error {
		UseTracerProvider(nil)
		return tp.Shutdown(ctx)
	}, nil
}

// StartCall starts the span of a tool call: it continues the client's
// trace named in the call's _meta (traceparent and tracestate, SEP-414),
// begins when the call's request arrived (t), and has the token check, if
// one ran in front of the call, as its first child. It carries the tool's
// name and never the arguments. End it with EndCall.
func StartCall(ctx context.Context, tool string, meta map[string]any, t *Timing) (context.Context, trace.Span) {
	tr := tracer.Load()
	if tr == nil {
		return ctx, noSpan
	}
	carrier := propagation.MapCarrier{}
	for _, k := range []string{"traceparent", "tracestate"} {
		if v, ok := meta[k].(string); ok {
			carrier[k] = v
		}
	}
	ctx = propagation.TraceContext{}.Extract(ctx, carrier)
	ctx, span := (*tr).Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(t.start),
		trace.WithAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.tool.name", tool)))
	if !t.authFrom.IsZero() {
		_, auth := (*tr).Start(ctx, "auth", trace.WithTimestamp(t.authFrom))
		auth.End(trace.WithTimestamp(t.authTo))
	}
	return ctx, span
}

// EndCall ends a call's span with how the call ended: its request id (the
// request log's key), outcome and rows; a fault of the server marks it as
// an error.
func EndCall(span trace.Span, requestID, outcome string, rows int, fault bool) {
	if span == noSpan {
		return
	}
	span.SetAttributes(attribute.String("plumbline.request_id", requestID), attribute.String("plumbline.outcome", outcome),
		attribute.Int("plumbline.rows", rows))
	if fault {
		span.SetStatus(codes.Error, outcome)
	}
	span.End()
}

// Span starts a child span of ctx's span named after a stage of plumbline's
// own (request_log, report_sql), when spans are recorded.
func Span(ctx context.Context, name string) (context.Context, trace.Span) {
	tr := tracer.Load()
	if tr == nil {
		return ctx, noSpan
	}
	return (*tr).Start(ctx, name)
}

// SQLTracer records every statement run on a pgx connection as a span
// beneath the span of whatever ran it: its kind (SELECT, INSERT…) and its
// text as written, with placeholders, never the values bound to them, and
// on failure only the SQLSTATE. The statements of a batch, which reach the
// server together, are timed from one result to the next. Foreign
// statements (written by someone else: the analyst's door) show their kind
// alone.
type SQLTracer struct {
	Foreign bool
}

var (
	_ pgx.QueryTracer = SQLTracer{}
	_ pgx.BatchTracer = SQLTracer{}
)

// TraceQueryStart starts a statement's span.
func (t SQLTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	ctx, _ = t.start(ctx, data.SQL, time.Now())
	return ctx
}

// TraceQueryEnd ends the span TraceQueryStart started.
func (t SQLTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	if span := trace.SpanFromContext(ctx); span.SpanContext().IsValid() {
		end(span, data.Err, time.Now())
	}
}

type batchKey struct{}

// batchTimes is when the last result of a batch came in.
type batchTimes struct{ last time.Time }

// TraceBatchStart notes when a batch was sent.
func (t SQLTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return context.WithValue(ctx, batchKey{}, &batchTimes{last: time.Now()})
}

// TraceBatchQuery records one statement of a batch, from the result before
// it to its own.
func (t SQLTracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	b, ok := ctx.Value(batchKey{}).(*batchTimes)
	if !ok {
		return
	}
	now := time.Now()
	if _, span := t.start(ctx, data.SQL, b.last); span != noSpan {
		end(span, data.Err, now)
	}
	b.last = now
}

// TraceBatchEnd does nothing: each statement has ended already.
func (t SQLTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (t SQLTracer) start(ctx context.Context, sql string, at time.Time) (context.Context, trace.Span) {
	tr := tracer.Load()
	if tr == nil {
		return ctx, noSpan
	}
	op := operation(sql)
	attrs := []attribute.KeyValue{attribute.String("db.system.name", "postgresql"), attribute.String("db.operation.name", op)}
	if !t.Foreign {
		attrs = append(attrs, attribute.String("db.query.text", sql))
	}
	return (*tr).Start(ctx, op, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(at), trace.WithAttributes(attrs...))
}

func end(span trace.Span, err error, at time.Time) {
	if err != nil {
		status := "error"
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			status = pgErr.Code
			span.SetAttributes(attribute.String("db.response.status_code", pgErr.Code))
		}
		span.SetStatus(codes.Error, status)
	}
	span.End(trace.WithTimestamp(at))
}

// operation is a statement's first keyword, upper-cased: SELECT, INSERT…
func operation(sql string) string {
	sql = strings.TrimSpace(sql)
	if i := strings.IndexFunc(sql, func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' || r == '(' }); i > 0 {
		sql = sql[:i]
	}
	if len(sql) > 16 {
		sql = sql[:16]
	}
	return strings.ToUpper(sql)
}
