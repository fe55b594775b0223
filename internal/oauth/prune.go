package oauth

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/telemetry"
)

// DefaultPruneEvery is how often a server prunes the sign-in state.
const DefaultPruneEvery = time.Hour

// Pruned counts what Prune deleted.
type Pruned struct{ Codes, Sessions, Tokens, ClientFailures int64 }

// Querier is what Prune runs on: a connection, a pool or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Prune deletes the sign-in state that can no longer be used, by the rules
// the database's plumbline.prune_signin_state holds: codes a day past their
// expiry, expired sign-in sessions, tokens 30 days past their expiry or
// revocation, and failed client authentications a day old. Nothing live
// is touched. An administrator may run it, and so
// may plumbline's own login, which can delete nothing else.
func Prune(ctx context.Context, q Querier) (Pruned, error) {
	var p Pruned
	err := q.QueryRow(ctx, "SELECT codes, sessions, tokens, client_failures FROM plumbline.prune_signin_state()").
		Scan(&p.Codes, &p.Sessions, &p.Tokens, &p.ClientFailures)
	return p, err
}

// PruneEvery prunes the sign-in state every interval, as the store's role,
// until ctx ends: each round's counts go to the log (at debug level when
// nothing was spent) and to metrics, if set; a failed round is logged and
// counted, and tried again at the next tick. Replicas may each prune: a
// round deletes only what no round before it has.
func (s *Store) PruneEvery(ctx context.Context, every time.Duration, log *slog.Logger, metrics *telemetry.Metrics) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var p Pruned
		err := s.tx(ctx, false, func(tx pgx.Tx) (err error) {
			p, err = Prune(ctx, tx)
			return err
		})
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			metrics.Auth(telemetry.EventPruneFailed)
			log.Warn("pruning the sign-in state failed; trying again at the next round", "error", err, "every", every)
			continue
		case p == Pruned{}:
			log.Debug("pruned the sign-in state: nothing was spent")
		default:
			log.Info("pruned the sign-in state", "codes", p.Codes, "sessions", p.Sessions, "tokens", p.Tokens, "client_failures", p.ClientFailures)
		}
		metrics.Pruned(telemetry.PrunedCodes, p.Codes)
		metrics.Pruned(telemetry.PrunedSessions, p.Sessions)
		metrics.Pruned(telemetry.PrunedTokens, p.Tokens)
		metrics.Pruned(telemetry.PrunedClientFailures, p.ClientFailures)
	}
}
