package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
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
// over OTLP/HTTP, and stopping sends what is queued.
func TestTraceToACollector(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	ctx := context.Background()
	stop, err := TraceTo(ctx, "", Build{})
	if err != nil || Tracing() {
		t.Fatalf("no collector named: tracing %v, %v", Tracing(), err)
	}
	stop(ctx)
	got := make(chan string, 10)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if len(body) > 0 {
			got <- r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type")
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	stop, err = TraceTo(ctx, collector.URL, Build{Version: "v"})
	if err != nil || !Tracing() {
		t.Fatalf("a collector named: tracing %v, %v", Tracing(), err)
	}
	_, span := Span(ctx, "request_log")
	span.End()
	if err := stop(ctx); err != nil {
		t.Fatal(err)
	}
	if Tracing() {
		t.Error("still tracing after stop")
	}
	select {
	case req := <-got:
		if req != "POST /v1/traces application/x-protobuf" {
			t.Errorf("the collector got %s", req)
		}
	default:
		t.Error("the collector got no spans")
	}
}
