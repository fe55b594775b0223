package telemetry

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Stage is a part of a tool call's time.
type Stage int

// The stages of a call, in the order they happen. Over HTTP, auth is the
// token check in front of the call; for a token seen before, the check of
// its row joins the admission, so its time counts under request_log, which
// covers the whole admission round trip (the call's row, the limit and the
// token's row). report_sql is the time in the report's own round trips.
// log_flush is the wait, once the report is done, for what is left of the
// flush of the call's row to disk, which runs beside the report. assembly
// is the rest: decoding, resolving, planning, building and encoding the
// answer.
const (
	StageAuth Stage = iota
	StageRequestLog
	StageReportSQL
	StageLogFlush
	StageAssembly
	stageCount
)

var stageNames = [stageCount]string{"auth", "request_log", "report_sql", "log_flush", "assembly"}

// String is the stage's label value.
func (s Stage) String() string { return stageNames[s] }

// Timing holds the time one request spent in each stage. Stages may be
// added from any goroutine.
type Timing struct {
	start time.Time
	ns    [stageCount]atomic.Int64

	// When the token check ran, for its span; written before the request
	// is handed on.
	authFrom, authTo time.Time
}

// NewTiming starts the timing of a request that arrived at start.
func NewTiming(start time.Time) *Timing { return &Timing{start: start} }

type timingKey struct{}

// WithTiming returns a context that carries t, for the stages of the
// request to add their time to.
func WithTiming(ctx context.Context, t *Timing) context.Context {
	return context.WithValue(ctx, timingKey{}, t)
}

// TimingFrom returns the timing ctx carries, or nil.
func TimingFrom(ctx context.Context) *Timing {
	t, _ := ctx.Value(timingKey{}).(*Timing)
	return t
}

// Since adds the time since start to stage s of the request ctx carries,
// if it carries one.
func Since(ctx context.Context, s Stage, start time.Time) {
	if t := TimingFrom(ctx); t != nil {
		t.ns[s].Add(int64(time.Since(start)))
	}
}

// Auth records the token check, which ran from from to to.
func (t *Timing) Auth(from, to time.Time) {
	if t == nil {
		return
	}
	t.authFrom, t.authTo = from, to
	t.ns[StageAuth].Add(int64(to.Sub(from)))
}

// Start is when the request arrived.
func (t *Timing) Start() time.Time { return t.start }

// Elapsed is the time since the request arrived.
func (t *Timing) Elapsed() time.Duration { return time.Since(t.start) }

// stages splits total into the stages: assembly is what the others leave.
func (t *Timing) stages(total time.Duration) [stageCount]time.Duration {
	var out [stageCount]time.Duration
	rest := total
	for s := range StageAssembly {
		out[s] = time.Duration(t.ns[s].Load())
		rest -= out[s]
	}
	out[StageAssembly] = max(rest, 0)
	return out
}

// ServerTiming is the value of a Server-Timing header for a request that
// took total: plumbline's whole time, then each stage's, in milliseconds
// ("plumbline;dur=1.234, auth;dur=0.050, ...").
func (t *Timing) ServerTiming(total time.Duration) string {
	var b strings.Builder
	b.Grow(128)
	entry := func(name string, d time.Duration) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteString(";dur=")
		b.WriteString(strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64))
	}
	entry("plumbline", total)
	for s, d := range t.stages(total) {
		entry(stageNames[s], d)
	}
	return b.String()
}
