package telemetry

import (
	"maps"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metric names. They are stable: dashboards, alerts and tests rely on them
// (the README lists them with their labels).
const (
	MetricCalls         = "plumbline_tool_calls_total"
	MetricCallSeconds   = "plumbline_tool_call_duration_seconds"
	MetricStageSeconds  = "plumbline_tool_call_stage_duration_seconds"
	MetricRefusals      = "plumbline_refusals_total"
	MetricLimitRefusals = "plumbline_limit_refusals_total"
	MetricLogFailures   = "plumbline_request_log_failures_total"
	MetricAuthEvents    = "plumbline_auth_events_total"
	MetricPruned        = "plumbline_signin_pruned_total"
	MetricBuildInfo     = "plumbline_build_info"
)

// Limits a refusal may be counted under (MetricLimitRefusals).
const (
	LimitCallsPerMinute       = "calls_per_minute"
	LimitAnalystStatements    = "analyst_statements_per_minute"
	LimitClientRegistrations  = "client_registrations"
	LimitClientAuthentication = "client_authentication"
)

// Request-log writes that may fail (MetricLogFailures): the call's row,
// written before the call runs and on disk before it answers (the call is
// refused), and its outcome, written afterwards in batches (or dropped,
// when too many wait).
const (
	LogWriteCall    = "call"
	LogWriteOutcome = "outcome"
	LogDropOutcome  = "outcome_dropped"
)

// Authorization events (MetricAuthEvents).
const (
	EventSignIn           = "sign_in"             // a member signed in
	EventSignInRefused    = "sign_in_refused"     // someone signed in who is not an active member
	EventConsentApproved  = "consent_approved"    // a code was issued
	EventConsentDeclined  = "consent_declined"    // the person said no
	EventTokenIssued      = "token_issued"        // a code or client credentials became a token
	EventTokenRefused     = "token_grant_refused" // the token endpoint refused a grant
	EventTokenInvalid     = "token_invalid"       // /mcp was called with a token that does not hold
	EventTokenRevoked     = "token_revoked"       // a client revoked a token
	EventClientRegistered = "client_registered"   // Dynamic Client Registration
	EventPruneFailed      = "prune_failed"        // a scheduled round of pruning the sign-in state failed
)

// What pruning the sign-in state deletes (MetricPruned).
const (
	PrunedCodes          = "codes"
	PrunedSessions       = "sessions"
	PrunedTokens         = "tokens"
	PrunedClientFailures = "client_failures"
)

// latencyBuckets suit calls of a millisecond to the statement timeout.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// Metrics are plumbline's Prometheus metrics, on a registry of their own.
// They are safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	calls    *prometheus.CounterVec
	seconds  *prometheus.HistogramVec
	stages   [stageCount]prometheus.Observer
	refusals *prometheus.CounterVec
	limited  *prometheus.CounterVec
	logFails *prometheus.CounterVec
	auth     *prometheus.CounterVec
	pruned   *prometheus.CounterVec

	tools atomic.Pointer[map[string]*toolSeries] // by tool name; replaced whole, never changed
}

// toolSeries are one tool's series, resolved once so that counting a call
// neither hashes labels nor allocates.
type toolSeries struct {
	seconds  prometheus.Observer
	outcomes map[string]prometheus.Counter
}

// Build names what is running, for MetricBuildInfo.
type Build struct {
	Version, Commit, Catalog string
}

// NewMetrics returns the metrics of a server running build, with the Go
// runtime's and the process's own.
func NewMetrics(build Build) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricCalls,
		Help: "Tool calls answered, by tool and outcome (ok, cached, candidates, or the refusal code)."}, []string{"tool", "outcome"})
	m.seconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricCallSeconds, Buckets: latencyBuckets,
		Help: "Time of a whole tool call, from the request's arrival (over HTTP) to its answer, by tool."}, []string{"tool"})
	stages := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricStageSeconds, Buckets: latencyBuckets,
		Help: "Time a tool call spent in each stage: auth (the token check before the call), request_log (admission: the call's row, " +
			"the limit and the token's row, one round trip), report_sql (the report's queries), log_flush (the wait for the call's row " +
			"to reach the disk, once the report is done) and assembly (the rest)."}, []string{"stage"})
	for s := range stageCount {
		m.stages[s] = stages.WithLabelValues(stageNames[s])
	}
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricRefusals,
		Help: "Refused tool calls, by rule: the refusal code and the argument it names (empty for a fault of the server)."}, []string{"code", "argument"})
	m.limited = prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricLimitRefusals,
		Help: "Requests refused by a rate limit, by limit."}, []string{"limit"})
	m.logFails = prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricLogFailures,
		Help: "Request-log writes that failed: call (the call's row; the call was refused), outcome (outcomes not recorded), " +
			"outcome_dropped (outcomes dropped while the database did not keep up)."}, []string{"write"})
	m.auth = prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricAuthEvents,
		Help: "Sign-in and token events of the authorization server and the token check, by event."}, []string{"event"})
	m.pruned = prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricPruned,
		Help: "Spent sign-in state the server's scheduled pruning deleted: codes, sessions, tokens and failed client authentications."}, []string{"kind"})
	for _, k := range []string{PrunedCodes, PrunedSessions, PrunedTokens, PrunedClientFailures} {
		m.pruned.WithLabelValues(k)
	}
	for _, l := range []string{LimitCallsPerMinute, LimitAnalystStatements, LimitClientRegistrations, LimitClientAuthentication} {
		m.limited.WithLabelValues(l)
	}
	for _, w := range []string{LogWriteCall, LogWriteOutcome, LogDropOutcome} {
		m.logFails.WithLabelValues(w)
	}
	for _, e := range []string{EventSignIn, EventSignInRefused, EventConsentApproved, EventConsentDeclined, EventTokenIssued,
		EventTokenRefused, EventTokenInvalid, EventTokenRevoked, EventClientRegistered, EventPruneFailed} {
		m.auth.WithLabelValues(e)
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: MetricBuildInfo, Help: "Always 1: the version, commit and catalogue version running.",
		ConstLabels: prometheus.Labels{"version": build.Version, "commit": build.Commit, "catalog_version": build.Catalog}})
	info.Set(1)
	m.reg.MustRegister(m.calls, m.seconds, stages, m.refusals, m.limited, m.logFails, m.auth, m.pruned, info,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Tools resolves the series of tools and the outcomes their calls may
// have, so that they are exported (at zero) before any call, and counting
// a call costs no lookup by label.
func (m *Metrics) Tools(tools, outcomes []string) {
	if m == nil {
		return
	}
	all := map[string]*toolSeries{}
	if old := m.tools.Load(); old != nil {
		maps.Copy(all, *old)
	}
	for _, tool := range tools {
		ts := &toolSeries{seconds: m.seconds.WithLabelValues(tool), outcomes: map[string]prometheus.Counter{}}
		for _, o := range outcomes {
			ts.outcomes[o] = m.calls.WithLabelValues(tool, o)
		}
		all[tool] = ts
	}
	m.tools.Store(&all)
}

// Call counts a tool call that ended with outcome and observes its time
// and the time of each of its stages. A refused call also counts under its
// rule: its code (the outcome) and the argument it names, if any.
func (m *Metrics) Call(tool, outcome string, refused bool, argument string, t *Timing) {
	if m == nil {
		return
	}
	total := t.Elapsed()
	var ts *toolSeries
	if all := m.tools.Load(); all != nil {
		ts = (*all)[tool]
	}
	if ts != nil {
		ts.seconds.Observe(total.Seconds())
		if c, ok := ts.outcomes[outcome]; ok {
			c.Inc()
		} else {
			m.calls.WithLabelValues(tool, outcome).Inc()
		}
	} else {
		m.seconds.WithLabelValues(tool).Observe(total.Seconds())
		m.calls.WithLabelValues(tool, outcome).Inc()
	}
	for s, d := range t.stages(total) {
		m.stages[s].Observe(d.Seconds())
	}
	if refused {
		m.refusals.WithLabelValues(outcome, argument).Inc()
	}
}

// Limited counts a request refused by a rate limit.
func (m *Metrics) Limited(limit string) {
	if m != nil {
		m.limited.WithLabelValues(limit).Inc()
	}
}

// LogFailed counts n request-log writes of a kind that failed.
func (m *Metrics) LogFailed(write string, n int) {
	if m != nil {
		m.logFails.WithLabelValues(write).Add(float64(n))
	}
}

// Auth counts an authorization event.
func (m *Metrics) Auth(event string) {
	if m != nil {
		m.auth.WithLabelValues(event).Inc()
	}
}

// Pruned counts n rows of a kind (PrunedCodes, PrunedSessions,
// PrunedTokens) that pruning the sign-in state deleted.
func (m *Metrics) Pruned(kind string, n int64) {
	if m != nil {
		m.pruned.WithLabelValues(kind).Add(float64(n))
	}
}

// Register adds a collector of the caller's own (such as Pool's).
func (m *Metrics) Register(c prometheus.Collector) {
	if m != nil {
		m.reg.MustRegister(c)
	}
}

// Server is the metrics' own HTTP server: /metrics, with timeouts that
// hold against slow scrapers.
func (m *Metrics) Server() *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	return &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
}
