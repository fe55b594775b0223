package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"plumbline/reports"
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
// statement timeout, and names the caller ctx carries (reports.CallerFrom)
// as its application_name, so a DBA watching pg_stat_activity sees whose
// call it is.
//
// When no connection comes free within the acquire timeout the error is
// reports.ErrBusy; when a statement runs too long, reports.ErrTimeout.
func (s *Store) Batch(ctx context.Context, tx Tx, queue func(*pgx.Batch)) error {
	actx, cancel := context.WithTimeout(ctx, s.opts.AcquireTimeout)
	conn, err := s.pool.Acquire(actx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%w: %w", reports.ErrBusy, err)
		}
		return err
	}
	defer conn.Release()
	b := &pgx.Batch{}
	begin := "BEGIN"
	if tx.Snapshot {
		begin += " ISOLATION LEVEL REPEATABLE READ"
	}
	if !tx.Write {
		begin += " READ ONLY"
	}
	b.Queue(begin)
	timeout := strconv.FormatInt(s.opts.StatementTimeout.Milliseconds(), 10)
	if tx.Role == "" {
		b.Queue("SELECT set_config('statement_timeout', $1, true), set_config('application_name', $2, true)",
			timeout, appName(ctx))
	} else {
		b.Queue("SELECT set_config('statement_timeout', $1, true), set_config('application_name', $2, true), set_config('role', $3, true)",
			timeout, appName(ctx), tx.Role)
	}
	if tx.Lazy {
		b.Queue("SELECT set_config('synchronous_commit', 'off', true)")
	}
	queue(b)
	// After a failed statement the transaction is aborted; the pool drops a
	// connection that is not idle when it comes back.
	if tx.Discard {
		b.Queue("ROLLBACK")
	} else {
		b.Queue("COMMIT")
	}
	err = conn.SendBatch(ctx, b).Close()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "57014" { // query_canceled: the statement timeout
		return fmt.Errorf("%w: %w", reports.ErrTimeout, err)
	}
	return err
}

// maxAppName is the longest application_name PostgreSQL keeps, in bytes.
const maxAppName = 63

// appName names the caller for pg_stat_activity: "plumbline: <person>", in
// printable ASCII (anything else becomes ?) and cut to what PostgreSQL
// keeps.
func appName(ctx context.Context) string {
	name := "plumbline"
	if c, ok := reports.CallerFrom(ctx); ok && c.Person != "" {
		name += ": " + c.Person
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
