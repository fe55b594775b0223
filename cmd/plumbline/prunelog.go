package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/oauth"
	"plumbline/internal/reqlog"
)

func pruneLog(ctx context.Context, args []string, s *streams) error {
	f := newFlags("prune-log", helpText("prune-log"), s)
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
	fmt.Fprintf(s.out, "Deleted %d spent authorization codes, %d expired sign-in sessions, %d access tokens past their audit grace "+
		"and %d failed client authentications a day old.\n", p.Codes, p.Sessions, p.Tokens, p.ClientFailures)
	return nil
}
