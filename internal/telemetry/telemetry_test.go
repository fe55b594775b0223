package telemetry

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// A request's stages add up to its whole time: assembly is what the others
// leave, and the Server-Timing header names each, in milliseconds.
func TestStagesSplitTheWholeTime(t *testing.T) {
	tm := NewTiming(time.Now())
	ctx := WithTiming(context.Background(), tm)
	tm.Auth(tm.Start(), tm.Start().Add(2*time.Millisecond))
	tm.ns[StageRequestLog].Add(int64(3 * time.Millisecond))
	tm.ns[StageReportSQL].Add(int64(4 * time.Millisecond))
	tm.ns[StageLogFlush].Add(int64(500 * time.Microsecond))
	Since(ctx, StageReportSQL, time.Now().Add(-time.Millisecond)) // at least 1 ms more
	got := tm.stages(20 * time.Millisecond)
	if got[StageAuth] != 2*time.Millisecond || got[StageRequestLog] != 3*time.Millisecond || got[StageReportSQL] < 5*time.Millisecond ||
		got[StageLogFlush] != 500*time.Microsecond ||
		got[StageAssembly] != 20*time.Millisecond-got[StageAuth]-got[StageRequestLog]-got[StageReportSQL]-got[StageLogFlush] {
		t.Errorf("stages of 20ms: %v", got)
	}
	if over := tm.stages(time.Millisecond); over[StageAssembly] != 0 {
		t.Errorf("assembly of a whole shorter than its stages: %v", over[StageAssembly])
	}
	header := tm.ServerTiming(20 * time.Millisecond)
	if !regexp.MustCompile(`^plumbline;dur=20\.000, auth;dur=2\.000, request_log;dur=3\.000, report_sql;dur=\d+\.\d{3}, log_flush;dur=0\.500, assembly;dur=\d+\.\d{3}$`).MatchString(header) {
		t.Errorf("Server-Timing: %s", header)
	}
	if TimingFrom(context.Background()) != nil {
		t.Error("a context without a timing has one")
	}
	Since(context.Background(), StageAuth, time.Now()) // no timing: nothing to add to, no panic
}

// Counting a call of a tool resolved beforehand allocates nothing, and
// counts under the call's tool and outcome, its rule when refused, and once
// in each stage.
func TestCountingACallAllocatesNothing(t *testing.T) {
	m := NewMetrics(Build{Version: "v", Commit: "c", Catalog: "k"})
	m.Tools([]string{"sales", "hours"}, []string{"ok", "invalid_argument"})
	tm := NewTiming(time.Now())
	if n := testing.AllocsPerRun(100, func() { m.Call("sales", "ok", false, "", tm) }); n != 0 {
		t.Errorf("counting a call allocates %v times", n)
	}
	m.Call("hours", "invalid_argument", true, "period", tm)
	if v := testutil.ToFloat64(m.calls.WithLabelValues("sales", "ok")); v != 101 {
		t.Errorf("sales ok = %v, want 101", v)
	}
	if v := testutil.ToFloat64(m.refusals.WithLabelValues("invalid_argument", "period")); v != 1 {
		t.Errorf("refusals of period = %v, want 1", v)
	}
	if v := testutil.ToFloat64(m.calls.WithLabelValues("hours", "ok")); v != 0 {
		t.Errorf("hours ok = %v, want 0", v)
	}
	var nilMetrics *Metrics
	nilMetrics.Call("sales", "ok", false, "", tm) // metrics off: nothing to count, no panic
	nilMetrics.Auth(EventSignIn)
	if n, err := testutil.GatherAndCount(m.reg, MetricStageSeconds); err != nil || n != 5 {
		t.Errorf("stage series: %d, %v", n, err)
	}
	if !strings.Contains(MetricCalls, "plumbline_") {
		t.Error("metric names carry no prefix")
	}
}

// Without a collector named, nothing is traced; with one, spans reach it
// over OTLP/HTTP as protobuf, with the headers the variables name, gzipped
// when asked, and asked again when the receiver says it is busy; stopping
// sends what is queued.
func TestTraceToACollector(t *testing.T) {
	clearOTLPEnv(t)
	ctx := context.Background()
	stop, err := TraceTo(ctx, "", Build{})
	if err != nil || Tracing() {
		t.Fatalf("no collector named: tracing %v, %v", Tracing(), err)
	}
	stop(ctx)

	type received struct {
		line, auth, tenant, other string
		spans                     []string
		service                   string
	}
	got := make(chan received, 10)
	var posts atomic.Int32 // the first is told to come back
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if posts.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		body := io.Reader(r.Body)
		if r.Header.Get("Content-Encoding") == "gzip" {
			z, err := gzip.NewReader(r.Body)
			if err != nil {
				t.Errorf("gzip: %v", err)
				return
			}
			body = z
		}
		raw, _ := io.ReadAll(body)
		rec := received{line: r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type") + " " + r.Header.Get("Content-Encoding"),
			auth: r.Header.Get("Authorization"), tenant: r.Header.Get("X-Tenant"), other: r.Header.Get("X-Other")}
		var err error
		if rec.spans, rec.service, err = decodeExport(raw); err != nil {
			t.Error(err)
		}
		got <- rec
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()

	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20general,X-Other=1")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "Authorization=Bearer%20traces, X-Tenant=floor%2C7")
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	stop, err = TraceTo(ctx, collector.URL, Build{Version: "v"})
	if err != nil || !Tracing() {
		t.Fatalf("a collector named: tracing %v, %v", Tracing(), err)
	}
	_, span := Span(ctx, "request_log")
	span.End()
	start := time.Now()
	if err := stop(ctx); err != nil {
		t.Fatal(err)
	}
	if Tracing() {
		t.Error("still tracing after stop")
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("sent again after %v, before the second the receiver asked for", waited)
	}
	select {
	case rec := <-got:
		if rec.line != "POST /v1/traces application/x-protobuf gzip" {
			t.Errorf("the collector got %s", rec.line)
		}
		// A signal's own variable stands in for the general one.
		if rec.auth != "Bearer traces" || rec.tenant != "floor,7" || rec.other != "" {
			t.Errorf("headers: Authorization %q, X-Tenant %q, X-Other %q", rec.auth, rec.tenant, rec.other)
		}
		if len(rec.spans) != 1 || rec.spans[0] != "request_log" || rec.service != "plumbline" {
			t.Errorf("spans %q of service %q, want [request_log] of plumbline", rec.spans, rec.service)
		}
	default:
		t.Error("the collector got no spans")
	}
}

// A receiver that is not there, or that asks to be called again after the
// timeout, fails the export at once: the spans behind it do not wait the
// timeout out. The export fails for what the receiver did, asked once,
// never for its timeout; how long it took is logged.
func TestTraceToAnAbsentCollector(t *testing.T) {
	clearOTLPEnv(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	var asked atomic.Int32
	later := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Retry-After", "60")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer later.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "5000")
	for name, url := range map[string]string{"a closed port": gone.URL, "a receiver busy for a minute": later.URL} {
		c, err := collectorFor(url)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err = c.UploadTraces(context.Background(), []*tracepb.ResourceSpans{{}})
		t.Logf("an export to %s failed after %s: %v", name, time.Since(start).Round(time.Millisecond), err)
		switch {
		case err == nil:
			t.Errorf("an export to %s succeeded", name)
		case errors.Is(err, context.DeadlineExceeded):
			t.Errorf("an export to %s waited its timeout out: %v", name, err)
		case url == gone.URL && !errors.Is(err, syscall.ECONNREFUSED):
			t.Errorf("an export to %s failed for another reason than the refused connection: %v", name, err)
		case url == later.URL && !strings.Contains(err.Error(), "503"):
			t.Errorf("an export to %s failed for another reason than the receiver's 503: %v", name, err)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("the busy receiver was asked %d times, want once", n)
	}
}

// decodeExport reads an ExportTraceServiceRequest field by field: the names
// of its spans and the service.name of their resource.
func decodeExport(b []byte) (spans []string, service string, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num != 1 || typ != protowire.BytesType {
			return nil, "", fmt.Errorf("not an ExportTraceServiceRequest: field %d type %d", num, typ)
		}
		b = b[n:]
		msg, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, "", errors.New("truncated ResourceSpans")
		}
		b = b[n:]
		var rs tracepb.ResourceSpans
		if err := proto.Unmarshal(msg, &rs); err != nil {
			return nil, "", err
		}
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				spans = append(spans, s.GetName())
			}
		}
	}
	return spans, service, nil
}

// Where traces go, and a configuration that cannot work refused at start
// with the variable named.
func TestTraceExporterConfiguration(t *testing.T) {
	for _, c := range []struct {
		flag string
		env  map[string]string
		url  string // where traces go, or
		err  string // the start of the refusal
	}{
		{flag: "http://collector:4318", url: "http://collector:4318/v1/traces"},
		{flag: "http://collector:4318/", url: "http://collector:4318/v1/traces"},
		{flag: "https://collector/otlp/traces", url: "https://collector/otlp/traces"},
		{flag: "http://flag", env: map[string]string{"TRACES_ENDPOINT": "http://traces/t"}, url: "http://flag/v1/traces"},
		{env: map[string]string{"ENDPOINT": "http://collector:4318"}, url: "http://collector:4318/v1/traces"},
		{env: map[string]string{"ENDPOINT": "http://gateway/otlp/"}, url: "http://gateway/otlp/v1/traces"},
		{env: map[string]string{"TRACES_ENDPOINT": "http://collector:4318/custom"}, url: "http://collector:4318/custom"},
		{env: map[string]string{"TRACES_ENDPOINT": "http://collector:4318"}, url: "http://collector:4318/"},
		{env: map[string]string{"TRACES_ENDPOINT": "http://traces/t", "ENDPOINT": "http://general"}, url: "http://traces/t"},
		{flag: "http://c", env: map[string]string{"HEADERS": "a=1,"}, url: "http://c/v1/traces"},
		{flag: "collector:4318", err: "--otlp-endpoint: want an http:// or https:// URL"},
		{env: map[string]string{"ENDPOINT": "ftp://c"}, err: "OTEL_EXPORTER_OTLP_ENDPOINT: want an http:// or https:// URL"},
		{flag: "http://c", env: map[string]string{"TRACES_PROTOCOL": "grpc"}, err: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: plumbline sends traces as http/protobuf only"},
		{flag: "http://c", env: map[string]string{"HEADERS": "novalue"}, err: "OTEL_EXPORTER_OTLP_HEADERS: want name=value pairs"},
		{flag: "http://c", env: map[string]string{"HEADERS": "two words=1"}, err: "OTEL_EXPORTER_OTLP_HEADERS: want name=value pairs"},
		{flag: "http://c", env: map[string]string{"TRACES_HEADERS": "a=line%0Abreak"}, err: "OTEL_EXPORTER_OTLP_TRACES_HEADERS: want name=value pairs"},
		{flag: "http://c", env: map[string]string{"TIMEOUT": "10s"}, err: "OTEL_EXPORTER_OTLP_TIMEOUT: want a positive number of milliseconds"},
		{flag: "http://c", env: map[string]string{"COMPRESSION": "zstd"}, err: "OTEL_EXPORTER_OTLP_COMPRESSION: want gzip or none"},
		{flag: "http://c", env: map[string]string{"CLIENT_KEY": "key.pem"}, err: "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY: name both or neither"},
	} {
		clearOTLPEnv(t)
		for k, v := range c.env {
			t.Setenv("OTEL_EXPORTER_OTLP_"+k, v)
		}
		col, err := collectorFor(c.flag)
		switch {
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("%s %v: got %v, want %q", c.flag, c.env, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s %v: %v", c.flag, c.env, err)
		case c.err == "" && col.url != c.url:
			t.Errorf("%s %v: traces go to %q, want %q", c.flag, c.env, col.url, c.url)
		}
	}
}

// clearOTLPEnv sets every variable the exporter reads to nothing for the
// test, whatever the environment it runs in says.
func clearOTLPEnv(t *testing.T) {
	for _, k := range []string{"ENDPOINT", "HEADERS", "COMPRESSION", "TIMEOUT", "PROTOCOL", "CERTIFICATE", "CLIENT_CERTIFICATE", "CLIENT_KEY"} {
		t.Setenv("OTEL_EXPORTER_OTLP_"+k, "")
		t.Setenv("OTEL_EXPORTER_OTLP_TRACES_"+k, "")
	}
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
}
