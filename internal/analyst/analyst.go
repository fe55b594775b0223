package analyst

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"plumbline/internal/grants"
	"plumbline/internal/pgstore"
	"plumbline/internal/sqlcheck"
	"plumbline/reports/ask"
	"plumbline/reports/grammar"
)

// Defaults for Options.
const (
	DefaultStatementTimeout = grants.DefaultStatementTimeout
	DefaultWorkMem          = grants.DefaultWorkMem
	DefaultPerMinute        = 30
	// MaxPageSize is the most rows one call returns.
	MaxPageSize = 50
	// MaxOffset is the furthest into a statement's rows a call may page.
	MaxOffset = 100000
	// DefaultValueBytes and DefaultPageBytes bound what a call returns:
	// a value, and a page's rows, as the answer's JSON holds them; they
	// fit a model's context.
	DefaultValueBytes = 64 << 10
	DefaultPageBytes  = 256 << 10
)

// descriptionBytes is what the wire may carry beyond a page's values: a
// result's description, which can name 1,664 columns, and the length of
// each value of a wide row.
const descriptionBytes = 256 << 10

// Options tune a Door. The zero value gives the defaults.
type Options struct {
	// Role is the role statements run as (SET ROLE): the analyst. If empty,
	// they run as the agent login itself.
	Role string
	// Logger is the role that writes the audit log: the logger. If empty,
	// the server's login writes it.
	Logger string
	// StatementTimeout bounds each statement. If zero,
	// DefaultStatementTimeout.
	StatementTimeout time.Duration
	// AcquireTimeout bounds the wait for a connection of the agent login.
	// If zero, pgstore.DefaultAcquireTimeout.
	AcquireTimeout time.Duration
	// MaxConns caps the agent login's pool. If zero, 4.
	MaxConns int32
	// WorkMem is each statement's work_mem, in PostgreSQL's units. If
	// empty, DefaultWorkMem.
	WorkMem string
	// ValueBytes bounds each value a call returns, as PostgreSQL sends it
	// and as the answer's JSON holds it; PageBytes bounds a page's rows,
	// as JSON, and each row PostgreSQL sends. Past either, the door stops
	// reading and cancels the statement. If zero, DefaultValueBytes and
	// DefaultPageBytes; ValueBytes may not exceed PageBytes.
	ValueBytes, PageBytes int
	// PerMinute is how many statements each caller may send in any minute;
	// negative for no limit. If zero, DefaultPerMinute.
	PerMinute int
	// TimeZone is the zone timestamps are shown in. If empty, UTC.
	TimeZone string
	// Reports are the report tools, which the door's description tells the
	// agent to use first.
	Reports []grammar.Tool
	// Log receives faults the caller is not told about in detail. If nil,
	// slog.Default().
	Log *slog.Logger
}

// Door is the analyst's door. It is safe for concurrent use.
type Door struct {
	agent   *pgstore.Store // signed in as the agent login
	audit   *pgstore.Store // signed in as plumbline's login, writing as the logger
	grants  []*grants.Grant
	policy  sqlcheck.Policy
	columns map[string][]column // what the agent login may read, by relation
	opts    Options
}

// column is a column the analyst may read.
type column struct {
	Name, Type string
}

// Open connects the door: to dsn, signed in as the agent login, with the
// analyst grants gs; the audit log goes through audit. It reads which
// columns the agent may read, for the tool's description and for
// refusals, and the names of PostgreSQL's built-in functions and types,
// for the check.
func Open(ctx context.Context, dsn string, audit *pgstore.Store, gs []*grants.Grant, opts *Options) (*Door, error) {
	d := &Door{audit: audit, grants: gs, policy: sqlcheck.Policy{Relations: grants.Relations(gs)}}
	if opts != nil {
		d.opts = *opts
	}
	o := &d.opts
	if o.StatementTimeout == 0 {
		o.StatementTimeout = DefaultStatementTimeout
	}
	if o.WorkMem == "" {
		o.WorkMem = DefaultWorkMem
	}
	if o.PerMinute == 0 {
		o.PerMinute = DefaultPerMinute
	}
	if o.MaxConns == 0 {
		o.MaxConns = 4
	}
	if o.ValueBytes == 0 {
		o.ValueBytes = DefaultValueBytes
	}
	if o.PageBytes == 0 {
		o.PageBytes = DefaultPageBytes
	}
	if o.ValueBytes < 0 || o.ValueBytes > o.PageBytes {
		return nil, fmt.Errorf("the bound of a value (%d bytes) must be positive and no more than the bound of a page (%d bytes)", o.ValueBytes, o.PageBytes)
	}
	if o.TimeZone == "" {
		o.TimeZone = "UTC"
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	var err error
	d.agent, err = pgstore.Open(ctx, dsn, nil, &pgstore.Options{StatementTimeout: o.StatementTimeout,
		AcquireTimeout: o.AcquireTimeout, MaxConns: o.MaxConns, Role: o.Role, Foreign: true,
		MaxMessageBytes: o.PageBytes + descriptionBytes})
	if err != nil {
		return nil, err
	}
	if d.columns, d.policy.Catalog, err = d.readSchema(ctx); err != nil {
		d.agent.Close()
		return nil, fmt.Errorf("read what the analyst may read: %w", err)
	}
	return d, nil
}

// Store returns the store signed in as the agent login, for the startup
// guard.
func (d *Door) Store() *pgstore.Store { return d.agent }

// Grants returns the analyst grants the door reads under.
func (d *Door) Grants() []*grants.Grant { return d.grants }

// Close closes the agent login's pool.
func (d *Door) Close() { d.agent.Close() }

// Answer is a call's result: a JSON object for the client.
type Answer struct {
	RequestID string
	Body      any  // marshals to the answer's JSON object
	Refused   bool // the call was refused
	Rows      int
}

// call is one call in flight.
type call struct {
	id     string
	caller ask.Caller
	text   string
	start  time.Time
}

// Call answers one call of the sql tool by caller, with the call's raw
// arguments.
func (d *Door) Call(ctx context.Context, caller ask.Caller, raw json.RawMessage) *Answer {
	c := &call{id: newID(), caller: caller, start: time.Now()}
	ctx = ask.WithCaller(ctx, caller)
	args, r := decode(raw)
	if args == nil {
		return c.refuse(r) // no statement to put on record
	}
	c.text = args.SQL
	var stmt *sqlcheck.Statement
	if r == nil {
		var err error
		if stmt, err = sqlcheck.Check(args.SQL, &d.policy); err != nil {
			r = statementRefusal(err.(*sqlcheck.Refusal))
		}
	}
	fingerprint := ""
	if stmt != nil {
		fingerprint = stmt.Fingerprint
	}
	wait, err := d.begin(ctx, c, fingerprint)
	if err != nil {
		switch {
		case errors.Is(err, ask.ErrBusy):
			return c.refuse(busy())
		case errors.Is(err, ask.ErrUnauthenticated):
			a := c.refuse(&Refusal{Code: ask.CodeUnauthenticated, Rule: "The access token is no longer valid (it was revoked or has expired); sign in again.", Choices: []string{}})
			d.finish(context.WithoutCancel(ctx), c, a)
			return a
		}
		d.opts.Log.Error("analyst audit: cannot record a statement; refusing it", "request_id", c.id, "err", err)
		return c.refuse(&Refusal{Code: ask.CodeUnavailable, Rule: "The statement could not be put on record, so it was not run; try again in a minute.", Choices: []string{}})
	}
	a := d.answer(ctx, c, args, stmt, r, wait)
	d.finish(context.WithoutCancel(ctx), c, a)
	return a
}

// answer decides a recorded call: the caller, the limit (wait says how
// long the caller must wait when over it), a refusal found before, or the
// run.
func (d *Door) answer(ctx context.Context, c *call, args *arguments, stmt *sqlcheck.Statement, r *Refusal, wait time.Duration) *Answer {
	if !Allowed(c.caller) {
		var choices []string
		for _, t := range d.opts.Reports {
			if c.caller.Tools == nil || slices.Contains(c.caller.Tools, t.Name) {
				choices = append(choices, t.Name)
			}
		}
		return c.refuse(&Refusal{Code: ask.CodeForbidden, Argument: "tool", Choices: nonNil(choices),
			Rule: "is the analyst's door, offered only to a contained agent's service identity with the analyst:sql scope; " +
				"ask with the report tools (choices), whose figures carry their definitions."})
	}
	if wait > 0 {
		return c.refuse(&Refusal{Code: ask.CodeRateLimited, Choices: []string{},
			Rule: fmt.Sprintf("This identity has sent too many statements this minute (at most %d); try again in %d seconds.", d.opts.PerMinute, int(wait.Seconds()+0.999))})
	}
	if r != nil {
		return c.refuse(r)
	}
	return d.run(ctx, c, args, stmt)
}

// Allowed reports whether a caller may use the door: a service identity
// whose token allows the sql tool.
func Allowed(c ask.Caller) bool {
	return strings.HasPrefix(c.Person, "service:") && c.Tools != nil && slices.Contains(c.Tools, ToolName)
}

// fault turns a store error into a refusal the caller can act on, and logs
// the detail, which never reaches the caller.
func (d *Door) fault(c *call, err error) *Answer {
	r := &Refusal{Code: ask.CodeUnavailable, Rule: "The database did not answer; try again in a minute.", Choices: []string{}}
	if errors.Is(err, ask.ErrBusy) {
		r = busy()
	}
	d.opts.Log.Error("analyst call failed", "request_id", c.id, "code", r.Code, "err", err)
	return c.refuse(r)
}

func busy() *Refusal {
	return &Refusal{Code: ask.CodeBusy, Rule: "The server is busy; try again in a few seconds.", Choices: []string{}}
}

func (c *call) refuse(r *Refusal) *Answer {
	return &Answer{RequestID: c.id, Body: &RefusalAnswer{RequestID: c.id, Verified: false, Error: r}, Refused: true}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func newID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
