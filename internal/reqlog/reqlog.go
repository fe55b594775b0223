// Package reqlog keeps plumbline's request log, plumbline.request_log: it
// implements reports.Recorder over the store's pool.
//
// Begin writes who called (person and client), which tool and with which
// arguments, before any report SQL runs; the database stamps when. If that
// write fails the engine refuses the call. Finish then fills in only the
// outcome: its code, the duration and the row count. Both run as the logger
// role, which may insert who/what and update the outcome columns and nothing
// else: it can neither delete a row nor rewrite who, what or when.
//
// Arguments arrive in loggable form (fixed choices as given, free text
// redacted); Redactor makes the redaction a keyed hash. No database error
// text is ever written to the log.
package reqlog

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/store"
	"plumbline/reports"
)

// Options tune a Log. The zero value writes as the login itself.
type Options struct {
	// Role is the role that writes the log (SET LOCAL ROLE), the logger.
	// If empty, the login writes it.
	Role string
	// Logger receives failures to record an outcome. If nil,
	// slog.Default().
	Logger *slog.Logger
}

// Log is the request log in the store's database.
type Log struct {
	st   *store.Store
	opts Options
}

var _ reports.Recorder = (*Log)(nil)

// New returns the request log of the store's database.
func New(st *store.Store, opts *Options) *Log {
	l := &Log{st: st}
	if opts != nil {
		l.opts = *opts
	}
	if l.opts.Logger == nil {
		l.opts.Logger = slog.Default()
	}
	return l
}

// Begin puts a call on record: who, through which client, which tool, with
// which arguments. The database stamps the time.
func (l *Log) Begin(ctx context.Context, r *reports.Record) error {
	return l.st.Batch(ctx, store.Tx{Role: l.opts.Role, Write: true}, func(b *pgx.Batch) {
		b.Queue(`INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments)
			VALUES ($1, $2, $3, $4, $5)`, r.ID, r.Caller.Person, r.Caller.Client, r.Tool, string(r.Arguments))
	})
}

// Finish records a call's outcome, duration and row count. A failure is
// logged, not returned: the answer is already made.
func (l *Log) Finish(ctx context.Context, r *reports.Record) {
	// The call's row is already on record, durably; its outcome need not
	// make the caller wait for a disk flush.
	err := l.st.Batch(ctx, store.Tx{Role: l.opts.Role, Write: true, Lazy: true}, func(b *pgx.Batch) {
		b.Queue(`UPDATE plumbline.request_log SET outcome = $2, duration_ms = $3, row_count = $4 WHERE request_id = $1`,
			r.ID, r.Outcome, float64(r.Duration.Microseconds())/1000, r.Rows)
	})
	if err != nil {
		l.opts.Logger.Error("request log: cannot record an outcome", "request_id", r.ID, "outcome", r.Outcome, "err", err)
	}
}
