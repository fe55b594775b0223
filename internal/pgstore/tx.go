package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/internal/query"
	"plumbline/reports/ask"
)

// This file runs statements in the transactions every database call of
// plumbline uses: one batch, one round trip.

// Tx says how Batch runs its statements.
type Tx struct {
	// Role is the role the statements run as (SET LOCAL ROLE). If empty,
	// they run as the login.
	Role string
	// Write makes the transaction read-write; otherwise it is read-only.
	Write bool
	// Snapshot runs every statement in one snapshot (repeatable read), so
	// that figures and the coverage read beside them agree.
	Snapshot bool
	// Lazy commits without waiting for the write-ahead log to reach disk
	// (synchronous_commit off): a crash may lose the last moment of such
	// writes, never corrupt them. For writes nothing waits on.
	Lazy bool
	// Generic plans every prepared statement once for any values of its
	// parameters (plan_cache_mode force_generic_plan), and reuses that
	// plan on the connection. PostgreSQL plans a statement anew on every
	// run while a plan for the values given looks cheaper than one for any
	// values, as it always does for an array parameter: for statements run
	// over and over whose best plan hardly depends on the values, that
	// planning is all cost. Such statements also run without JIT
	// compilation, which PostgreSQL would otherwise do on every run of a
	// plan it costs high, at more than the statement itself takes.
	Generic bool
	// Discard ends the transaction with ROLLBACK instead of COMMIT, so
	// nothing it did outlasts it: for statements written by someone else
	// (the analyst's door), where even what PostgreSQL lets a read-only
	// transaction do (create a large object, queue a notification) must
	// not stay.
	Discard bool
}

// Batch runs the statements queue adds in one transaction, sent to the
// server as one batch: one round trip. The transaction is read-only unless
// tx.Write, runs as tx.Role, stops any statement that runs past the
// statement timeout, and names the caller ctx carries (ask.CallerFrom)
// as its application_name, so a DBA watching pg_stat_activity sees whose
// call it is.
//
// When no connection comes free within the acquire timeout the error is
// ask.ErrBusy; when a statement runs too long, ask.ErrTimeout.
func (s *Store) Batch(ctx context.Context, tx Tx, queue func(*pgx.Batch)) error {
	return s.Pipeline(ctx, Step{Tx: tx, Queue: queue})
}

// Step is one transaction of a pipeline: how it runs, and what it runs.
type Step struct {
	Tx    Tx
	Queue func(*pgx.Batch)
}

// Pipeline runs its steps as transactions one after the other, as Batch
// runs one, all sent to the server as one batch: one round trip. Each step
// sees what the steps before it committed. The first failed statement stops
// the rest: the server skips everything after it.
//
// Every step but the last is an explicit transaction (BEGIN … COMMIT); the
// last is the implicit one the server keeps until the batch ends, which
// saves two statements a batch and commits or rolls back just the same,
// unless it needs one snapshot or must be discarded.
func (s *Store) Pipeline(ctx context.Context, steps ...Step) error {
	return s.use(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.SendBatch(ctx, s.batch(ctx, steps, false)).Close()
	})
}

// acquire takes a connection from the pool, waiting at most the acquire
// timeout: past it, the error is ask.ErrBusy.
func (s *Store) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	actx, cancel := context.WithTimeout(ctx, s.opts.AcquireTimeout)
	conn, err := s.pool.Acquire(actx)
	cancel()
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w: %w", ask.ErrBusy, err)
	}
	return conn, err
}

// timedOut marks an error of a statement that ran past the statement
// timeout as ask.ErrTimeout.
func timedOut(err error) error {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "57014" { // query_canceled: the statement timeout
		return fmt.Errorf("%w: %w", ask.ErrTimeout, err)
	}
	return err
}

// batch queues the steps' transactions. The last step may be the server's
// implicit transaction, unless it needs what only an explicit one offers,
// or explicit says every step must be.
func (s *Store) batch(ctx context.Context, steps []Step, explicit bool) *pgx.Batch {
	// Room for a step's usual statements (its BEGIN, its settings, a few
	// of its own and its end) beside the batch itself, not grown as they
	// come; a pipeline of more steps grows it once.
	rb := &roomyBatch{}
	b := &rb.Batch
	b.QueuedQueries = rb.room[:0]
	// The settings' arguments are the same for every step but the role:
	// made once, and for the first step held in the batch's room.
	person, day := callerSettings(ctx)
	name, who, when := any(appName(ctx)), any(person), any(day)
	args := rb.settings[:0]
	for i, st := range steps {
		implicit := !explicit && i == len(steps)-1 && !st.Tx.Snapshot && !st.Tx.Discard
		if !implicit {
			b.Queue(begin(st.Tx))
		}
		settings := settingsSQL[settingsKey{readOnly: !st.Tx.Write && implicit, lazy: st.Tx.Lazy, generic: st.Tx.Generic}]
		args = append(args[len(args):], s.timeout, name, roleSetting(st.Tx.Role), who, when, s.reach)
		b.Queue(settings, args...)
		st.Queue(b)
		// After a failed statement the transaction is aborted; the pool
		// drops a connection that is not idle when it comes back.
		switch {
		case implicit:
		case st.Tx.Discard:
			b.Queue("ROLLBACK")
		default:
			b.Queue("COMMIT")
		}
	}
	return b
}

// roomyBatch is a batch with room for a step's statements and the
// arguments of its settings (see batch).
type roomyBatch struct {
	pgx.Batch
	room     [8]*pgx.QueuedQuery
	settings [6]any
}

// begin is the statement that begins a transaction as tx says: in one
// snapshot or not, read-write or read-only.
func begin(tx Tx) string {
	switch {
	case tx.Snapshot && tx.Write:
		return "BEGIN ISOLATION LEVEL REPEATABLE READ"
	case tx.Snapshot:
		return "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	case tx.Write:
		return "BEGIN"
	default:
		return "BEGIN READ ONLY"
	}
}

// settingsKey picks the statement that sets up a transaction: whether it
// must make itself read-only (an implicit transaction cannot begin so),
// whether it commits lazily and whether it plans generically.
type settingsKey struct{ readOnly, lazy, generic bool }

// settingsSQL sets a transaction's statement timeout, application name,
// role, and caller, day and default reach for the views that filter by
// reach (query.SeenViews) ($1 to $6), and its mode, in one statement; every setting
// is local to the transaction.
var settingsSQL = func() map[settingsKey]string {
	out := map[settingsKey]string{}
	for _, readOnly := range []bool{false, true} {
		for _, lazy := range []bool{false, true} {
			for _, generic := range []bool{false, true} {
				q := "SELECT set_config('statement_timeout', $1, true), set_config('application_name', $2, true), set_config('role', $3, true), " +
					"set_config('" + query.CallerSetting + "', $4, true), set_config('" + query.DaySetting + "', $5, true), " +
					"set_config('" + query.DefaultReachSetting + "', $6, true)"
				if readOnly {
					q += ", set_config('transaction_read_only', 'on', true)"
				}
				if lazy {
					q += ", set_config('synchronous_commit', 'off', true)"
				}
				if generic {
					q += ", set_config('plan_cache_mode', 'force_generic_plan', true), set_config('jit', 'off', true)"
				}
				out[settingsKey{readOnly, lazy, generic}] = q
			}
		}
	}
	return out
}()

// QueueRole queues a change of the role the rest of a transaction runs as;
// an empty role is the login itself.
func QueueRole(b *pgx.Batch, role string) {
	b.Queue("SELECT set_config('role', $1, true)", roleSetting(role))
}

// roleSetting is the value of the role setting for a role name: none, for
// the login itself.
func roleSetting(role string) string {
	if role == "" {
		return "none"
	}
	return role
}

// callerSettings are the values of query.CallerSetting and
// query.DaySetting for ctx's caller: empty for a transaction no caller
// asked for.
func callerSettings(ctx context.Context) (person, day string) {
	c, ok := ask.CallerFrom(ctx)
	if !ok {
		return "", ""
	}
	if !c.Day.IsZero() {
		day = c.Day.Format(time.DateOnly)
	}
	return c.Person, day
}

// maxAppName is the longest application_name PostgreSQL keeps, in bytes.
const maxAppName = 63

// appName names the caller for pg_stat_activity: "plumbline: <person>", in
// printable ASCII (anything else becomes ?) and cut to what PostgreSQL
// keeps.
func appName(ctx context.Context) string {
	name := "plumbline"
	if c, ok := ask.CallerFrom(ctx); ok && c.Person != "" {
		name += ": " + c.Person
	}
	if len(name) <= maxAppName && !strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if b.Len() >= maxAppName {
			break
		}
		if r < 0x20 || r > 0x7e {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
}
