package reports

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"plumbline/catalog"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/directory"
	"plumbline/reports/grammar"
)

// DefaultDirectoryTTL is how long the engine keeps the directory before
// reading it again.
const DefaultDirectoryTTL = 30 * time.Second

// DefaultCoverageTTL is how long the engine trusts its last reading of how
// far each source is loaded when it decides what to ask for. Answers state
// data_through from a reading taken with their own rows.
const DefaultCoverageTTL = 10 * time.Second

// Options tune an Engine. The zero value is ready to use.
type Options struct {
	// Now returns the current moment. If nil, time.Now.
	Now func() time.Time
	// DirectoryTTL is how long the directory is cached. If zero,
	// DefaultDirectoryTTL.
	DirectoryTTL time.Duration
	// CoverageTTL is how long a reading of how far a source is loaded is
	// trusted. If zero, DefaultCoverageTTL.
	CoverageTTL time.Duration
	// Logger receives faults the caller is not told about in detail. If
	// nil, slog.Default().
	Logger *slog.Logger
	// Recorder keeps the request log and the limit counted in it. If nil,
	// calls are neither recorded nor limited.
	Recorder ask.Recorder
	// Redact turns free text from a call into what the request log keeps.
	// If nil, only its length is kept.
	Redact func(text string) any
	// Cache keeps settled answers. If nil, the engine keeps its own of
	// DefaultCacheBytes; NewAnswerCache(0) keeps nothing.
	Cache *AnswerCache
	// Reach resolves what each caller may see, once per call, as of the
	// call's day on the floor. If nil, every caller sees the whole floor.
	Reach ask.ReachSource
}

// Engine answers tool calls from the catalogue and a store. It is safe for
// concurrent use.
type Engine struct {
	cat   *catalog.Catalog
	store ask.Store
	opts  Options

	words *grammar.Vocabulary // the grammar's words, which the request log keeps

	dir      refreshed[*directory.Directory]
	coverage map[string]*sourceCoverage // by source id
	answers  *AnswerCache
}

// sourceCoverage is how far one source is loaded, kept and refreshed, and
// the read of it, made once for every call.
type sourceCoverage struct {
	refreshed[ask.Coverage]
	read func(context.Context) (ask.Coverage, error)
}

// Answer is a tool call's result: a JSON object for the client.
type Answer struct {
	RequestID string
	Body      any          // marshals to the answer's JSON object
	Refusal   *ask.Refusal // set when the call was refused
	Rows      int          // figure rows returned
	// Warnings names the kinds of the warnings among the answer's notes
	// (see the Warn constants, and package target's for targets), in
	// order, for logs and tests.
	Warnings []string
	// Cached says the answer was kept from an earlier call (Body is then
	// its JSON).
	Cached bool
	kept   *kept // the kept answer this is, or was kept as
}

// Outcomes of a call that answered: with figures, with figures kept from
// an earlier call, or with candidates for a name that matched several.
const (
	OutcomeOK         = "ok"
	OutcomeCached     = "cached"
	OutcomeCandidates = "candidates"
)

// Outcomes is every outcome a call may end with: the answers' and the
// refusal codes.
var Outcomes = []string{OutcomeOK, OutcomeCached, OutcomeCandidates, ask.CodeInvalidArgument, ask.CodeNotComparable, ask.CodeUnavailable,
	ask.CodeBusy, ask.CodeTimeout, ask.CodeRateLimited, ask.CodeForbidden, ask.CodeUnauthenticated, ask.CodeInternal}

// Outcome is how the call ended, as the request log and the metrics name
// it: one of Outcomes.
func (a *Answer) Outcome() string {
	if a.Refusal != nil {
		return a.Refusal.Code
	}
	if _, ok := a.Body.(*CandidatesAnswer); ok {
		return OutcomeCandidates
	}
	if a.Cached {
		return OutcomeCached
	}
	return OutcomeOK
}

// New returns an engine over a loaded catalogue and a store.
func New(cat *catalog.Catalog, store ask.Store, opts *Options) *Engine {
	e := &Engine{cat: cat, store: store, coverage: map[string]*sourceCoverage{}}
	if opts != nil {
		e.opts = *opts
	}
	for _, s := range cat.Sources() {
		e.coverage[s.ID] = &sourceCoverage{read: func(ctx context.Context) (ask.Coverage, error) {
			cov, err := e.store.Coverage(ctx, []*catalog.Source{s})
			return cov[s.ID], err
		}}
	}
	e.answers = e.opts.Cache
	if e.answers == nil {
		e.answers = NewAnswerCache(DefaultCacheBytes)
	}
	if e.opts.Now == nil {
		e.opts.Now = time.Now
	}
	if e.opts.DirectoryTTL == 0 {
		e.opts.DirectoryTTL = DefaultDirectoryTTL
	}
	if e.opts.CoverageTTL == 0 {
		e.opts.CoverageTTL = DefaultCoverageTTL
	}
	if e.opts.Logger == nil {
		e.opts.Logger = slog.Default()
	}
	if e.opts.Redact == nil {
		e.opts.Redact = func(text string) any { return ask.Redacted{Length: len(text)} }
	}
	e.words = grammar.VocabularyOf(e.Tools())
	return e
}

// Catalog returns the catalogue the engine answers from.
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// call is one tool call in flight.
type call struct {
	id     string
	tool   string
	caller ask.Caller
	now    time.Time
	reach  ask.Reach // what the caller may see, resolved by dispatch
	// reached says reach was resolved (a call refused before it was has
	// none on record).
	reached bool

	// The arguments, decoded once (see arguments).
	decoded     bool
	args        *grammar.Args
	argsRefusal *ask.Refusal
}

// Call answers one tool call: it puts the call on record and holds the
// caller to the limit, answers, and records the outcome. Unknown tools are
// refused like any bad argument; the MCP layer only routes known names
// here.
func (e *Engine) Call(ctx context.Context, caller ask.Caller, tool string, raw json.RawMessage) *Answer {
	c := &call{id: newRequestID(), tool: tool, caller: caller, now: e.opts.Now()}
	c.caller.Day = calendar.Today(c.now, e.cat.Zone())
	ctx = ask.WithCaller(ctx, c.caller)
	if e.opts.Recorder == nil {
		a := e.dispatch(ctx, c, raw)
		a.RequestID = c.id
		return a
	}
	rec := &ask.Record{ID: c.id, Caller: caller, Tool: tool, Arguments: e.loggable(c, raw), Started: time.Now()}
	wait, err := e.opts.Recorder.Admit(ctx, rec)
	var a *Answer
	switch {
	case errors.Is(err, ask.ErrBusy):
		return e.fault(c, err)
	case errors.Is(err, ask.ErrUnauthenticated):
		a = c.refuse(ask.Unavailable(ask.CodeUnauthenticated, "The access token is no longer valid (it was revoked or has expired); sign in again."))
	case err != nil:
		e.opts.Logger.Error("request log: cannot record a call; refusing it", "request_id", c.id, "tool", tool, "err", err)
		return c.refuse(ask.Unavailable(ask.CodeUnavailable, "The call could not be put on record, so it was not run; try again in a minute."))
	case wait > 0:
		secs := int(wait.Seconds() + 0.999)
		a = c.refuse(ask.Unavailable(ask.CodeRateLimited, "This token has made too many calls this minute; try again in "+itoa(secs)+" seconds."))
	default:
		a = e.dispatch(ctx, c, raw)
	}
	if rec.Durable != nil {
		// The report ran while the row went to disk; the answer waits
		// until it is there.
		if err := rec.Durable(); err != nil {
			e.opts.Logger.Error("request log: cannot record a call; refusing it", "request_id", c.id, "tool", tool, "err", err)
			a = c.refuse(ask.Unavailable(ask.CodeUnavailable, "The call could not be put on record, so its answer was withheld; try again in a minute."))
		}
	}
	a.RequestID = c.id
	rec.Outcome, rec.Duration, rec.Rows = a.Outcome(), time.Since(rec.Started), a.Rows
	if c.reached {
		rec.Reach = c.reach.String()
	}
	e.opts.Recorder.Finish(context.WithoutCancel(ctx), rec)
	return a
}

// dispatch routes a call to its tool.
func (e *Engine) dispatch(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	if c.caller.Tools != nil && !slices.Contains(c.caller.Tools, c.tool) {
		return c.refuse(&ask.Refusal{Code: ask.CodeForbidden, Argument: "tool",
			Rule: "is not among the tools this token allows (choices); ask whoever issued the token for one that allows it.", Choices: c.caller.Tools})
	}
	if err := e.reachOf(ctx, c); err != nil {
		return e.fault(c, err)
	}
	key, cacheable := e.answerKey(ctx, c, raw)
	if cacheable {
		if k, ok := e.answers.get(key); ok {
			return k.answer(c.id)
		}
	}
	a := e.route(ctx, c, raw)
	if cacheable {
		e.keep(key, c, a)
	}
	return a
}

// route answers a call with its tool.
func (e *Engine) route(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	if rep, ok := e.cat.Report(c.tool); ok {
		return e.report(ctx, c, rep, raw)
	}
	if handle, ok := own[c.tool]; ok {
		return handle(e, ctx, c, raw)
	}
	return c.refuse(ask.Invalid("tool", "is not a plumbline tool.", e.ToolNames()...))
}

// arguments returns the call's arguments, decoded once: Call decodes them
// to put them on record, and the tool reads them from here. The decoded
// fields are only ever read.
func (c *call) arguments(raw json.RawMessage) (*grammar.Args, *ask.Refusal) {
	if !c.decoded {
		c.args, c.argsRefusal = grammar.Parse(raw)
		c.decoded = true
	}
	if c.argsRefusal != nil {
		return nil, c.argsRefusal
	}
	return c.args, nil
}

// noArguments refuses a call to a tool that takes none if it has any.
func (c *call) noArguments(raw json.RawMessage) *ask.Refusal {
	a, r := c.arguments(raw)
	if r == nil {
		r = a.Only()
	}
	return r
}

func (c *call) refuse(r *ask.Refusal) *Answer {
	return &Answer{RequestID: c.id, Body: &answer.Refused{RequestID: c.id, Error: r}, Refusal: r}
}

// fault turns a store error into a refusal the caller can act on, and logs
// the detail, which never reaches the caller.
func (e *Engine) fault(c *call, err error) *Answer {
	r := ask.Unavailable(ask.CodeUnavailable, "The report database did not answer; try again in a minute.")
	switch {
	case errors.Is(err, ask.ErrBusy):
		r = ask.Unavailable(ask.CodeBusy, "The server is busy; try again in a few seconds.")
	case errors.Is(err, ask.ErrTimeout):
		r = ask.Unavailable(ask.CodeTimeout, "The query took too long; ask for a shorter period or fewer groups.")
	}
	e.opts.Logger.Error("tool call failed", "request_id", c.id, "tool", c.tool, "code", r.Code, "err", err)
	return c.refuse(r)
}

// directory returns the roster, as of the floor's day: read at most once
// per DirectoryTTL, in the background while calls use the last reading, and
// read again, with calls waiting, when the day changes. On the same day
// the store is asked first whether the roster changed (its stamp), and an
// unchanged roster is not read again: the directory already settled is
// kept, with what it has worked out for calls since.
func (e *Engine) directory(ctx context.Context, now time.Time) (*directory.Directory, error) {
	day := calendar.Today(now, e.cat.Zone())
	return e.dir.get(ctx, e.opts.DirectoryTTL, func(d *directory.Directory) bool { return d.Day().Equal(day) },
		func(ctx context.Context) (*directory.Directory, error) {
			last, _ := e.dir.last()
			unless := ""
			if last != nil && last.Day().Equal(day) {
				unless = last.Stamp
			}
			roster, err := e.store.Directory(ctx, unless)
			switch {
			case err != nil:
				return nil, err
			case roster == nil: // unchanged since last
				return last, nil
			}
			return directory.New(roster, day, last), nil
		})
}

// sourcesCoverage returns how far the sources the metrics read are loaded,
// each source read at most once per CoverageTTL and on its own, so a slow
// source slows only the reports that read it, and only until its first
// reading: later readings refresh in the background.
func (e *Engine) sourcesCoverage(ctx context.Context, metrics []*catalog.Metric) (map[string]ask.Coverage, error) {
	out := map[string]ask.Coverage{}
	for _, m := range metrics {
		for _, s := range m.Sources() {
			if _, done := out[s.ID]; done {
				continue
			}
			sc := e.coverage[s.ID]
			c, err := sc.get(ctx, e.opts.CoverageTTL, always[ask.Coverage], sc.read)
			if err != nil {
				return nil, err
			}
			out[s.ID] = c
		}
	}
	return out, nil
}

// newRequestID returns a call's id: the wall clock's milliseconds since the
// epoch in 6 bytes, then 6 random ones, in hex. Ids in time order keep the
// request log's primary key growing at its end, so writing a call's row
// and its outcome touches the same few index pages however long the log
// grows; random ids would touch pages all over an index larger than the
// database's cache.
func newRequestID() string {
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	rand.Read(b[6:])
	return hex.EncodeToString(b[:])
}

func itoa(i int) string { return strconv.Itoa(i) }
