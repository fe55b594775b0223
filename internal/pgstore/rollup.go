package pgstore

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/query"
)

// RollupEvery is how often a server looks for rollups to build again: a
// load that finished is read from the agent-days until then.
const RollupEvery = time.Minute

// Rolled is one rollup built again: its source, the rows it holds and the
// time the database took to build it.
type Rolled struct {
	Source string
	Rows   int64
	Took   time.Duration
}

// RefreshRollups builds again, as the report role, every rollup whose
// source, loads or roster changed since it was built (query.RefreshFunction),
// and returns those it built. A catalogue with no rollup has none to build.
func (s *Store) RefreshRollups(ctx context.Context) ([]Rolled, error) {
	if !query.Rollups(s.cat) {
		return nil, nil
	}
	var out []Rolled
	err := s.Batch(ctx, Tx{Role: s.opts.Role, Write: true}, func(b *pgx.Batch) {
		b.Queue("SELECT rolled, row_count, took_ms FROM " + query.RefreshFunction).Query(func(rows pgx.Rows) error {
			var err error
			out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Rolled, error) {
				var x Rolled
				var ms float64
				err := r.Scan(&x.Source, &x.Rows, &ms)
				x.Took = time.Duration(ms * float64(time.Millisecond))
				return x, err
			})
			return err
		})
	})
	return out, err
}

// RefreshRollupsEvery refreshes the rollups now and then every every, until
// ctx ends, logging each one built and each refresh that failed.
func (s *Store) RefreshRollupsEvery(ctx context.Context, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		built, err := s.RefreshRollups(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			log.Warn("building the rollups failed; the floor's reports read every agent-day until the next round", "error", err, "every", every)
		}
		for _, r := range built {
			log.Info("rollup built", "source", r.Source, "rows", r.Rows, "took_ms", float64(r.Took.Microseconds())/1000)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
