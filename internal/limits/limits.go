// Package limits holds each person to a number of calls a minute. It
// implements reports.Limiter by counting the person's calls over the last
// minute in the request log, which every replica writes to before it asks:
// so the limit holds across any number of replicas sharing one database,
// with no table of its own to write.
//
// Two replicas checking at the same moment may both see each other's calls
// and both refuse; they can never both miss them. Calls refused for the
// limit do not count against it.
package limits

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/store"
	"plumbline/reports"
)

// DefaultPerMinute is how many calls a person may make in any minute.
const DefaultPerMinute = 60

// Options tune a Limiter. The zero value allows DefaultPerMinute calls and
// reads the log as the login.
type Options struct {
	// PerMinute is how many calls a person may make in any minute. If
	// zero, DefaultPerMinute.
	PerMinute int
	// Role is the role that reads the request log (the logger). If empty,
	// the login reads it.
	Role string
}

// Limiter holds each person to Options.PerMinute calls a minute.
type Limiter struct {
	st   *store.Store
	opts Options
}

var _ reports.Limiter = (*Limiter)(nil)

// New returns a limiter counting in the store's request log. The engine
// must record calls there (package reqlog) before it asks.
func New(st *store.Store, opts *Options) *Limiter {
	l := &Limiter{st: st}
	if opts != nil {
		l.opts = *opts
	}
	if l.opts.PerMinute == 0 {
		l.opts.PerMinute = DefaultPerMinute
	}
	return l
}

// window reads how many calls a person made in the last minute, this one
// included, and how long until enough of them leave the window to bring
// the count back to the limit.
const window = `
SELECT n, extract(epoch FROM started_at + interval '1 minute' - now())::float8
FROM (
    SELECT started_at, count(*) OVER () AS n, row_number() OVER (ORDER BY started_at) AS k
    FROM plumbline.request_log
    WHERE person = $1 AND started_at > now() - interval '1 minute'
      AND outcome IS DISTINCT FROM 'rate_limited'
) calls
WHERE k = greatest(n - $2, 1)`

// Allow returns how long the caller must wait when they are over the
// limit, or zero.
func (l *Limiter) Allow(ctx context.Context, c reports.Caller) (time.Duration, error) {
	var n int
	var wait float64
	err := l.st.Batch(ctx, store.Tx{Role: l.opts.Role}, func(b *pgx.Batch) {
		b.Queue(window, c.Person, l.opts.PerMinute).QueryRow(func(row pgx.Row) error {
			return row.Scan(&n, &wait)
		})
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, nil // no calls on record in the last minute
	case err != nil:
		return 0, err
	case n <= l.opts.PerMinute:
		return 0, nil
	}
	return time.Duration(math.Max(wait, 1) * float64(time.Second)), nil
}
