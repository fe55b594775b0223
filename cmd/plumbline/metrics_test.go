package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"plumbline/internal/oauth"
	"plumbline/internal/pgtest"
	"plumbline/internal/telemetry"
)

// A scrape of /metrics after a short load through the go-sdk client over
// HTTP counts exactly the calls made: by tool and outcome (as the client saw
// each answer, and as the request log recorded it), their times and their
// stages' times once per call, the refusals by rule, the limit's refusals,
// a refused token, and the pools.
func TestMetricsCountEveryCall(t *testing.T) {
	db := pgtest.NewDB(t)
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, logs syncBuffer
	done := make(chan int, 1)
	const perMinute = 6
	go func() {
		done <- runWith(ctx, []string{"serve", "--db", db.AppDSN, "--addr", addr, "--metrics-addr", metricsAddr,
			"--calls-per-minute", fmt.Sprint(perMinute), "--max-conns", "5"}, &out, &logs)
	}()
	metricsURL := waitFor(t, &logs, regexp.MustCompile(`"metrics_url":"([^"]+)"`), done)
	endpoint := waitFor(t, &logs, regexp.MustCompile(`"url":"([^"]+/mcp)"`), done)
	if metricsURL != "http://"+metricsAddr+"/metrics" {
		t.Errorf("metrics served at %s, want http://%s/metrics", metricsURL, metricsAddr)
	}
	code, token, errOut := runCLI(t, "token", "create", "--service", "watched", "--scope", "reports:read people:read",
		"--db", db.AppDSN, "--public-url", "http://"+addr)
	if code != 0 {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: oauth.BearerTransport(strings.TrimSpace(token), http.DefaultTransport)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	week := `"period":{"start":"2026-11-02","end":"2026-11-08"}`
	load := []struct{ tool, args, want string }{
		{"sales", `{"who":{"floor":true},` + week + `,"group_by":"team"}`, "ok"},
		{"hours", `{"who":{"floor":true},` + week + `}`, "ok"},
		{"sales", `{"who":{"floor":true},"period":{"named":"last_week"},"extra":1}`, "invalid_argument"},
		{"quality", `{"who":{"floor":true},"period":{"start":"2026-11-08","end":"2026-11-02"}}`, "invalid_argument"},
		{"health", `{}`, "ok"},
		{"roster", `{"who":{"floor":true}}`, "ok"},
		// Past the limit: every further call is refused.
		{"health", `{}`, "rate_limited"},
		{"sales", `{"who":{"floor":true},` + week + `}`, "rate_limited"},
	}
	calls := map[[2]string]float64{}    // tool, outcome
	refusals := map[[2]string]float64{} // code, argument
	perTool := map[string]float64{}
	for i, c := range load {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("call %d (%s): %v", i, c.tool, err)
		}
		outcome := "ok"
		var a struct {
			Error *struct{ Code, Argument string }
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &a)
		if res.IsError {
			if a.Error == nil {
				t.Fatalf("call %d (%s): a refusal without an error: %s", i, c.tool, b)
			}
			outcome = a.Error.Code
			refusals[[2]string{a.Error.Code, a.Error.Argument}]++
		}
		if outcome != c.want {
			t.Fatalf("call %d (%s) ended %s, want %s: %s", i, c.tool, outcome, c.want, b)
		}
		calls[[2]string{c.tool, outcome}]++
		perTool[c.tool]++
	}
	// A token that does not hold is refused before any call.
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer plb_not-a-token")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a bad token: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	fams := scrape(t, metricsURL)
	got := map[[2]string]float64{}
	var total float64
	for _, m := range fams[telemetry.MetricCalls].GetMetric() {
		got[[2]string{label(m, "tool"), label(m, "outcome")}] = m.GetCounter().GetValue()
		total += m.GetCounter().GetValue()
	}
	for k, n := range calls {
		if got[k] != n {
			t.Errorf("%s{tool=%q,outcome=%q} = %v, want %v", telemetry.MetricCalls, k[0], k[1], got[k], n)
		}
	}
	t.Logf("calls made: %v; %s sums to %v", calls, telemetry.MetricCalls, total)
	if total != float64(len(load)) {
		t.Errorf("%s sums to %v over every series, want the %d calls made", telemetry.MetricCalls, total, len(load))
	}
	if n, ok := got[[2]string{"find_people", "ok"}]; !ok || n != 0 {
		t.Errorf("the series of a tool not called is not exported at zero: %v, %v", n, ok)
	}
	for _, m := range fams[telemetry.MetricCallSeconds].GetMetric() {
		if n := float64(m.GetHistogram().GetSampleCount()); n != perTool[label(m, "tool")] {
			t.Errorf("%s{tool=%q} counts %v calls, want %v", telemetry.MetricCallSeconds, label(m, "tool"), n, perTool[label(m, "tool")])
		}
	}
	stages := map[string]bool{}
	for _, m := range fams[telemetry.MetricStageSeconds].GetMetric() {
		stages[label(m, "stage")] = true
		if n := m.GetHistogram().GetSampleCount(); n != uint64(len(load)) {
			t.Errorf("%s{stage=%q} counts %d calls, want %d", telemetry.MetricStageSeconds, label(m, "stage"), n, len(load))
		}
	}
	for _, s := range []string{"auth", "request_log", "report_sql", "log_flush", "assembly"} {
		if !stages[s] {
			t.Errorf("no %s{stage=%q}", telemetry.MetricStageSeconds, s)
		}
	}
	gotRefusals := map[[2]string]float64{}
	for _, m := range fams[telemetry.MetricRefusals].GetMetric() {
		gotRefusals[[2]string{label(m, "code"), label(m, "argument")}] = m.GetCounter().GetValue()
	}
	if fmt.Sprint(gotRefusals) != fmt.Sprint(refusals) {
		t.Errorf("%s = %v, want %v", telemetry.MetricRefusals, gotRefusals, refusals)
	}
	for name, want := range map[string]float64{
		telemetry.MetricLimitRefusals + `{limit="calls_per_minute"}`:                                 float64(len(load) - perMinute),
		telemetry.MetricLimitRefusals + `{limit="client_registrations"}`:                             0,
		telemetry.MetricAuthEvents + `{event="token_invalid"}`:                                       1,
		telemetry.MetricAuthEvents + `{event="token_issued"}`:                                        0,
		telemetry.MetricLogFailures + `{write="call"}`:                                               0,
		telemetry.MetricPoolMax + `{pool="primary"}`:                                                 5,
		telemetry.MetricPoolMax + `{pool="auth"}`:                                                    4,
		telemetry.MetricBuildInfo + `{catalog_version=` + fmt.Sprintf("%q", catalogVersion(t)) + `}`: 1,
	} {
		if v, ok := value(fams, name); !ok || v != want {
			t.Errorf("%s = %v (exported: %v), want %v", name, v, ok, want)
		}
	}
	// Every call took the primary pool at least once (its admission).
	if v, _ := value(fams, telemetry.MetricPoolAcquires+`{pool="primary"}`); v < float64(len(load)) {
		t.Errorf("%s{pool=\"primary\"} = %v, want at least %d", telemetry.MetricPoolAcquires, v, len(load))
	}

	// The request log, written by its own code, says the same of every call.
	logged := map[[2]string]float64{}
	deadline := time.Now().Add(10 * time.Second)
	for {
		clear(logged)
		rows, err := db.Conn(t).Query(ctx, `SELECT tool, coalesce(outcome, ''), count(*) FROM plumbline.calls
			WHERE person = 'service:watched' GROUP BY 1, 2`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var tool, outcome string
			var n float64
			rows.Scan(&tool, &outcome, &n)
			logged[[2]string{tool, outcome}] = n
		}
		if fmt.Sprint(logged) == fmt.Sprint(calls) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if fmt.Sprint(logged) != fmt.Sprint(calls) {
		t.Errorf("the request log holds %v, the calls made were %v", logged, calls)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d:\n%s", code, logs.String())
	}
}

// scrape reads a metrics endpoint as Prometheus does.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// value reads the one series of a family that has the labels named, as
// name{label="value",...}, a counter's or a gauge's value.
func value(fams map[string]*dto.MetricFamily, series string) (float64, bool) {
	name, labels, _ := strings.Cut(strings.TrimSuffix(series, "}"), "{")
	for _, m := range fams[name].GetMetric() {
		match := true
		for _, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			if label(m, k) != strings.Trim(v, `"`) {
				match = false
			}
		}
		if match {
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue(), true
			}
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

func catalogVersion(t *testing.T) string {
	cat, err := loadCatalog("")
	if err != nil {
		t.Fatal(err)
	}
	return cat.Version()
}
