package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/members"
	"plumbline/reports/ask"
)

// ReachReader reads callers' reach (members.ReachSQL) on a store's pool,
// as Role (plumbline's auth role, which may read plumbline.reach), in one
// read-only round trip held to the pool's acquire and statement timeouts:
// a call that finds no connection free in time is answered busy, as for
// its report.
type ReachReader struct {
	Store *Store
	Role  string
}

var _ members.ReachReader = ReachReader{}

// Reach returns what person may see on day, or def when no row is in force.
func (r ReachReader) Reach(ctx context.Context, person string, day time.Time, def ask.Reach) (ask.Reach, error) {
	var sees, teams []string
	err := r.Store.Batch(ctx, Tx{Role: r.Role}, func(b *pgx.Batch) {
		b.Queue(members.ReachSQL, person, day).QueryRow(func(row pgx.Row) error { return row.Scan(&sees, &teams) })
	})
	if err != nil {
		return ask.Reach{}, fmt.Errorf("read reach: %w", err)
	}
	return members.FoldReach(sees, teams, def), nil
}
