package analyst

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/pgstore"
	"plumbline/internal/reqlog"
	"plumbline/internal/sqlcheck"
	"plumbline/internal/telemetry"
	"plumbline/reports/ask"
)

// This file keeps the audit log, plumbline.analyst_log, and the
// per-caller limit counted in it.

// begin puts a statement on record before anything runs: who sent it,
// through which client, the statement (cut at the longest the check takes)
// with its whole length, and its fingerprint. The database stamps the time.
// In the same round trip it counts the caller's statements of the last
// minute, this one included, and returns how long the caller must wait
// when over the limit, or zero.
func (d *Door) begin(ctx context.Context, c *call, fingerprint string) (time.Duration, error) {
	defer telemetry.Since(ctx, telemetry.StageRequestLog, time.Now())
	ctx, span := telemetry.Span(ctx, "request_log")
	defer span.End()
	text := c.text
	if len(text) > sqlcheck.MaxBytes {
		text = text[:sqlcheck.MaxBytes]
	}
	text = validUTF8(text)
	var fp any
	if fingerprint != "" {
		fp = fingerprint
	}
	var n int
	var wait float64
	// The bearer token's row, when the call came without an upfront check
	// of it (package oauth), is read in the same round trip.
	check := reqlog.CheckFrom(ctx)
	err := d.audit.Batch(ctx, pgstore.Tx{Role: d.opts.Logger, Write: true}, func(b *pgx.Batch) {
		reqlog.QueueChecks(b, []reqlog.Check{check}, d.opts.Logger)
		b.Queue(`INSERT INTO plumbline.analyst_log (statement_id, caller, client, statement, statement_bytes, fingerprint)
			VALUES ($1, $2, $3, $4, $5, $6)`, c.id, c.caller.Person, c.caller.Client, text, len(c.text), fp)
		if d.opts.PerMinute > 0 {
			b.Queue(window, c.caller.Person, d.opts.PerMinute).QueryRow(func(row pgx.Row) error {
				err := row.Scan(&n, &wait)
				if errors.Is(err, pgx.ErrNoRows) {
					return nil
				}
				return err
			})
		}
	})
	if err == nil && check != nil {
		if cerr := check.Err(); cerr != nil {
			return 0, fmt.Errorf("%w: %w", ask.ErrUnauthenticated, cerr)
		}
	}
	if err != nil || d.opts.PerMinute <= 0 || n <= d.opts.PerMinute {
		return 0, err
	}
	return time.Duration(math.Max(wait, 1) * float64(time.Second)), nil
}

// finish records a statement's outcome: ok or the refusal's code, the check
// it broke, the duration and the rows returned. A failure is logged, not
// returned: the answer is already made.
func (d *Door) finish(ctx context.Context, c *call, a *Answer) {
	outcome, rule := "ok", ""
	if r, ok := a.Body.(*RefusalAnswer); ok {
		outcome, rule = r.Error.Code, r.Error.Check
	}
	var ruleArg any
	if rule != "" {
		ruleArg = rule
	}
	err := d.audit.Batch(ctx, pgstore.Tx{Role: d.opts.Logger, Write: true, Lazy: true}, func(b *pgx.Batch) {
		b.Queue(`UPDATE plumbline.analyst_log SET outcome = $2, rule = $3, duration_ms = $4, row_count = $5 WHERE statement_id = $1`,
			c.id, outcome, ruleArg, float64(time.Since(c.start).Microseconds())/1000, a.Rows)
	})
	if err != nil {
		d.opts.Log.Error("analyst audit: cannot record an outcome", "request_id", c.id, "outcome", outcome, "err", err)
	}
}

// window reads how many statements a caller sent in the last minute, this
// one included, and how long until enough leave the window to bring the
// count back to the limit. Statements refused for the limit do not count.
const window = `
SELECT n, extract(epoch FROM started_at + interval '1 minute' - now())::float8
FROM (
    SELECT started_at, count(*) OVER () AS n, row_number() OVER (ORDER BY started_at) AS k
    FROM plumbline.analyst_log
    WHERE caller = $1 AND started_at > now() - interval '1 minute'
      AND outcome IS DISTINCT FROM 'rate_limited'
) sent
WHERE k = greatest(n - $2, 1)`

// validUTF8 replaces what a text column cannot hold (bytes that are not
// UTF-8, NUL characters: a statement the check refused for them).
func validUTF8(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
