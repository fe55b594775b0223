package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	"plumbline/reports/ask"
)

// This file holds what a store does for statements someone else wrote
// (Options.Foreign, the analyst's door): nothing they leave on a
// connection reaches the next statement; their rows can be abandoned
// part-read, cancelling them; and they are over within the statement
// timeout and Grace, ended by the server's own timeout, by a cancel, or
// at worst with their backend.

// Grace is how long past the statement timeout a foreign statement may
// run before the store cancels it; if the server has not answered the
// cancel Grace later, the store closes the connection and ends the
// statement's backend.
const Grace = 250 * time.Millisecond

// ErrNotEnded marks the error of a foreign statement past its timeout
// whose backend could not be ended: it may still be running.
var ErrNotEnded = errors.New("the backend of a statement past its timeout could not be ended")

// resetTimeout bounds the reset of a connection coming back to the pool.
const resetTimeout = 5 * time.Second

// foreign readies a pool's configuration for foreign statements.
func foreign(cfg *pgxpool.Config) {
	// Statements are prepared unnamed, and only their descriptions are
	// kept: the reset below deallocates every prepared statement.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: Grace}
	}
	cfg.AfterRelease = reset
}

// reset leaves nothing a connection's statements did for the next to
// inherit, even what their ROLLBACK keeps: session advisory locks,
// prepared statements, settings, temporary objects, cursors and LISTEN
// (DISCARD ALL). A connection that cannot be reset is closed.
func reset(c *pgx.Conn) bool {
	ctx, cancel := context.WithTimeout(context.Background(), resetTimeout)
	defer cancel()
	return c.PgConn().Exec(ctx, "DISCARD ALL").Close() == nil
}

// abandoned is the error of rows a caller stopped reading on purpose.
type abandoned struct{ err error }

func (a *abandoned) Error() string { return a.err.Error() }
func (a *abandoned) Unwrap() error { return a.err }

// Abandon stops reading rows, of a foreign store's statement, on purpose
// (the caller has read enough, or too much), and returns err, which a
// query's callback returns in turn: it cancels the statement on the
// server and closes the connection, so that nothing more is read and the
// server stops sending. The batch returns err.
func Abandon(rows pgx.Rows, err error) error {
	c := rows.Conn().PgConn()
	ctx, cancel := context.WithTimeout(context.Background(), Grace)
	defer cancel()
	c.CancelRequest(ctx) // if it fails, the closed connection ends the statement when it next writes
	c.Conn().Close()
	return &abandoned{err}
}

// use runs f on a connection of the pool, waiting at most the acquire
// timeout for one, and marks an error of a statement that ran past the
// statement timeout as ask.ErrTimeout. On a foreign store, f's
// statements are over within the statement timeout and Grace: the server's
// own timeout ends them, or else a cancel, or, if the server has not
// answered that Grace later, the end of their backend.
func (s *Store) use(ctx context.Context, f func(context.Context, *pgxpool.Conn) error) error {
	conn, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if !s.opts.Foreign {
		return timedOut(f(ctx, conn))
	}
	pid := conn.Conn().PgConn().PID()
	fctx, cancel := context.WithTimeout(ctx, s.opts.StatementTimeout+Grace)
	defer cancel()
	err = f(fctx, conn)
	var stopped *abandoned
	if fctx.Err() != nil && conn.Conn().IsClosed() && !errors.As(err, &stopped) {
		err = errors.Join(err, s.end(pid))
	}
	if errors.Is(fctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("%w, and its cancel %s after: %w", ask.ErrTimeout, Grace, err)
	}
	return timedOut(err)
}

// end ends the backend pid, whose statement outran its cancel, and waits
// for it at most Grace. It signs in as the store's login afresh, outside
// the pool, which may have no connection to spare: PostgreSQL lets a
// login end its own backends, while the role a foreign statement runs as
// cannot end any.
func (s *Store) end(pid uint32) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.AcquireTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig)
	if err != nil {
		return fmt.Errorf("%w (backend %d): %w", ErrNotEnded, pid, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_terminate_backend($1, $2)", pid, Grace.Milliseconds()); err != nil {
		return fmt.Errorf("%w (backend %d): %w", ErrNotEnded, pid, err)
	}
	return nil
}
