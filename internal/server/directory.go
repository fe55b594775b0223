package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/internal/members"
	"plumbline/internal/scim"
)

// Directory opens the directory on dsn with its own small pool, its
// statements run as the auth role. The returned func closes it.
func (a *Auth) Directory(ctx context.Context, dsn string) (*members.Store, func(), error) {
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --db: %v", ErrUsage, err)
	}
	pc.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, nil, err
	}
	return members.NewStore(pool, a.Role), pool.Close, nil
}

// directory returns the SCIM endpoint for a server listening on addr,
// over the directory on dsn, and a func that closes it.
func (a *Auth) directory(ctx context.Context, dsn, addr string, log *slog.Logger) (http.Handler, func(), error) {
	cfg, err := a.Config(addr, log, nil)
	if err != nil {
		return nil, nil, err
	}
	store, closeStore, err := a.Directory(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	h, err := scim.Handler(store, scim.Options{BaseURL: cfg.BaseURL, PerMinute: a.SCIMPerMinute, Logger: log})
	if err != nil {
		closeStore()
		return nil, nil, err
	}
	return h, closeStore, nil
}
