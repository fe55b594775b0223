package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/oauth"
	"plumbline/internal/reqlog"
)

const pruneLogHelp = `
Usage: plumbline prune-log --db DSN [--keep-days N]

Delete the calls the request log (plumbline.request_log) has kept longer
than --keep-days, the audit horizon: every call newer than that stays on
record, with who asked, what, when and how it went. The default keeps 400
days, so that a year's audit can always be answered; set it to what your
audit policy requires, and run this on a schedule (daily, from cron or a
Kubernetes CronJob). It deletes in batches of ten thousand rows, so the log
stays usable while it runs, and prints how many it deleted.

Connect as an administrator (the owner of plumbline's schema, or a role
granted DELETE on the log): plumbline's own login may only add to its log,
never delete from it, so that a compromised server cannot erase its trail.
The per-person limit reads only the last minute of the log and is unaffected.

It also deletes the sign-in state that can no longer be used, as every
HTTP server does each --prune-every: authorization codes a day after they
expired (a replay within that day still revokes what the code bought),
expired sign-in sessions, and access tokens 30 days after they expired or
were revoked (until then plumbline token list --all still shows them).
Nothing that still works is touched.

Examples:
  plumbline prune-log --db postgres://admin@db/floor
  PLUMBLINE_DB=postgres://admin@db/floor PLUMBLINE_KEEP_DAYS=730 plumbline prune-log
`

func pruneLog(ctx context.Context, args []string, s *streams) error {
	f := newFlags("prune-log", pruneLogHelp, s)
	db := f.string("db", "", "PostgreSQL connection `string` of an administrator (required)")
	days := f.int("keep-days", int(reqlog.DefaultRetention/(24*time.Hour)), "the audit horizon: keep every call this many days")
	if _, err := f.parse(args); err != nil {
		return err
	}
	if *db == "" {
		return fmt.Errorf("%w: --db is required", errUsage)
	}
	if *days < 1 {
		return fmt.Errorf("%w: --keep-days must be at least 1", errUsage)
	}
	conn, err := pgx.Connect(ctx, *db)
	if err != nil {
		return fmt.Errorf("cannot reach the database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	n, err := reqlog.Prune(ctx, conn, time.Duration(*days)*24*time.Hour, func(deleted int64) {
		fmt.Fprintf(s.err, "deleted %d calls so far ...\n", deleted)
	})
	if err != nil {
		return fmt.Errorf("prune the request log: %w", err)
	}
	fmt.Fprintf(s.out, "Deleted %d calls older than %d days from the request log.\n", n, *days)
	p, err := oauth.Prune(ctx, conn)
	if err != nil {
		return fmt.Errorf("prune the sign-in state: %w", err)
	}
	fmt.Fprintf(s.out, "Deleted %d spent authorization codes, %d expired sign-in sessions and %d access tokens past their audit grace.\n",
		p.Codes, p.Sessions, p.Tokens)
	return nil
}
