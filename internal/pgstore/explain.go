package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/query"
	"plumbline/reports/ask"
)

// Explain runs a plan's statement under EXPLAIN (ANALYZE, BUFFERS), in a
// read-only transaction with the statement timeout like any report, and
// returns the plan PostgreSQL chose and ran, one line per row. It is the
// plan for the statement's values: a served report runs the plan made
// once for any values (see readOnly), which PostgreSQL 15 cannot explain
// with ANALYZE.
func (s *Store) Explain(ctx context.Context, plan *ask.Plan) ([]string, error) {
	stmt, args, err := query.Build(plan)
	if err != nil {
		return nil, fmt.Errorf("build report query: %w", err)
	}
	var lines []string
	err = s.readOnly(ctx, func(b *pgx.Batch) {
		b.Queue("EXPLAIN (ANALYZE, BUFFERS) "+stmt, args...).Query(func(rows pgx.Rows) (err error) {
			lines, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
	})
	return lines, err
}
