package reports

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"plumbline/catalog"
)

// Errors a Store returns for faults the caller should hear about by name.
var (
	// ErrBusy means no database connection came free in time.
	ErrBusy = errors.New("no database connection came free in time")
	// ErrTimeout means a query ran past the statement timeout.
	ErrTimeout = errors.New("the query ran past the statement timeout")
)

// DefaultDirectoryTTL is how long the engine keeps the directory before
// reading it again.
const DefaultDirectoryTTL = 30 * time.Second

// Options tune an Engine. The zero value is ready to use.
type Options struct {
	// Now returns the current moment. If nil, time.Now.
	Now func() time.Time
	// DirectoryTTL is how long the directory is cached. If zero,
	// DefaultDirectoryTTL.
	DirectoryTTL time.Duration
	// Logger receives faults the caller is not told about in detail. If
	// nil, slog.Default().
	Logger *slog.Logger
}

// Engine answers tool calls from the catalogue and a store. It is safe for
// concurrent use.
type Engine struct {
	cat   *catalog.Catalog
	store Store
	opts  Options

	mu        sync.Mutex
	dir       *Directory
	dirDay    time.Time
	dirLoaded time.Time
}

// Caller is who is calling, from the token; never from arguments.
type Caller struct {
	Person string // the person, or the service identity's name
	Client string // the OAuth client the call came through
}

// Answer is a tool call's result: a JSON object for the client.
type Answer struct {
	RequestID string
	Body      any      // marshals to the answer's JSON object
	Refusal   *Refusal // set when the call was refused
	Rows      int      // figure rows returned
}

// New returns an engine over a loaded catalogue and a store.
func New(cat *catalog.Catalog, store Store, opts *Options) *Engine {
	e := &Engine{cat: cat, store: store}
	if opts != nil {
		e.opts = *opts
	}
	if e.opts.Now == nil {
		e.opts.Now = time.Now
	}
	if e.opts.DirectoryTTL == 0 {
		e.opts.DirectoryTTL = DefaultDirectoryTTL
	}
	if e.opts.Logger == nil {
		e.opts.Logger = slog.Default()
	}
	return e
}

// Catalog returns the catalogue the engine answers from.
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// call is one tool call in flight.
type call struct {
	id     string
	tool   string
	caller Caller
	now    time.Time
}

// Call answers one tool call. Unknown tools are refused like any bad
// argument; the MCP layer only routes known names here.
func (e *Engine) Call(ctx context.Context, caller Caller, tool string, raw json.RawMessage) *Answer {
	c := &call{id: newRequestID(), tool: tool, caller: caller, now: e.opts.Now()}
	var a *Answer
	switch {
	case tool == toolMetricDefinitions:
		a = e.metricDefinitions(c, raw)
	case tool == toolHealth:
		a = e.health(ctx, c, raw)
	default:
		rep, ok := e.cat.Report(tool)
		if !ok {
			return c.refuse(invalid("tool", "is not a plumbline tool", e.ToolNames()...))
		}
		a = e.report(ctx, c, rep, raw)
	}
	a.RequestID = c.id
	return a
}

func (c *call) refuse(r *Refusal) *Answer {
	return &Answer{RequestID: c.id, Body: &RefusalAnswer{RequestID: c.id, Error: r}, Refusal: r}
}

// fault turns a store error into a refusal the caller can act on, and logs
// the detail, which never reaches the caller.
func (e *Engine) fault(c *call, err error) *Answer {
	r := unavailable(CodeUnavailable, "the report database did not answer; try again in a minute")
	switch {
	case errors.Is(err, ErrBusy):
		r = unavailable(CodeBusy, "the server is busy; try again in a few seconds")
	case errors.Is(err, ErrTimeout):
		r = unavailable(CodeTimeout, "the query took too long; ask for a shorter period or fewer groups")
	}
	e.opts.Logger.Error("tool call failed", "request_id", c.id, "tool", c.tool, "code", r.Code, "err", err)
	return c.refuse(r)
}

// directory returns the roster, read at most once per DirectoryTTL and again
// when the day changes.
func (e *Engine) directory(ctx context.Context, now time.Time) (*Directory, error) {
	day := today(now, e.cat.Zone())
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dir != nil && e.dirDay.Equal(day) && now.Sub(e.dirLoaded) < e.opts.DirectoryTTL {
		return e.dir, nil
	}
	dir, err := e.store.Directory(ctx, day)
	if err != nil {
		return nil, err
	}
	e.dir, e.dirDay, e.dirLoaded = dir, day, now
	return dir, nil
}

func newRequestID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
