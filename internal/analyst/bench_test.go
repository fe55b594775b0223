package analyst_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"plumbline/internal/analyst"
	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/internal/sqlcheck"
	"plumbline/reports"
)

// benchSQL is a statement an analyst agent writes: a week's sales by team,
// as the agents' teams were on each day.
const benchSQL = `SELECT h.team_key, sum(s.submitted) AS submitted, round(sum(s.submitted)::numeric / nullif(sum(s.submitted + s.lost), 0), 4)
	FROM metrics.agent_sales_daily s JOIN analytics.agent_team_history h ON h.agent_key = s.agent_key
	WHERE s.day BETWEEN date '2026-11-09' AND date '2026-11-15' GROUP BY 1 ORDER BY 2 DESC`

// starSQL is a statement whose select list is a *: a day's rows of a
// relation, whatever its columns.
const starSQL = `SELECT * FROM metrics.agent_sales_daily WHERE day = date '2026-11-17' ORDER BY submitted DESC`

// Side by side in one run: the parse and checks alone; the same statement
// run directly with pgx as the analyst, read-only, with the door's
// settings; a page of a SELECT * run by the door's store as the analyst,
// with its columns known and with PostgreSQL asked for them first (the
// round trip a * costs); and a whole call of the door (check, audit write,
// limit count, the run, the outcome), without MCP, for the join and for
// the SELECT *.
func BenchmarkDoor(b *testing.B) {
	f := newFloor(b, setup{perMinute: 1 << 30})
	ctx := context.Background()
	rows, err := f.sql.Query(ctx, sqlcheck.CatalogQuery)
	if err != nil {
		b.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		b.Fatal(err)
	}
	policy := &sqlcheck.Policy{Relations: []string{"analytics.agent_team_history", "metrics.agent_sales_daily"}, Catalog: map[string]bool{}}
	for _, n := range names {
		policy.Catalog[n] = true
	}
	st, err := sqlcheck.Check(benchSQL, policy)
	if err != nil {
		b.Fatal(err)
	}
	paged, err := st.Paged(st.Columns)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if _, err := sqlcheck.Check(benchSQL, policy); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		conn, err := pgx.Connect(ctx, f.db.AgentDSN)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		for b.Loop() {
			err := pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, "SELECT set_config('role', $1, true), set_config('work_mem', '16MB', true)", pgtest.Roles.Analyst); err != nil {
					return err
				}
				rows, err := tx.Query(ctx, paged, analyst.MaxPageSize+1, 0)
				if err != nil {
					return err
				}
				_, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	star, err := sqlcheck.Check(starSQL, &sqlcheck.Policy{Relations: []string{"metrics.agent_sales_daily"}})
	if err != nil {
		b.Fatal(err)
	}
	tx := pgstore.Tx{Role: pgtest.Roles.Analyst, Discard: true}
	page := func(bt *pgx.Batch, paged string) {
		bt.Queue(paged, analyst.MaxPageSize+1, 0).Query(func(rows pgx.Rows) error {
			_, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
			return err
		})
	}
	var starPaged string
	b.Run("star-described", func(b *testing.B) {
		for b.Loop() {
			err := f.door.Store().BatchDescribing(ctx, tx, func(*pgx.Batch) {}, star.SQL, func(desc *pgconn.StatementDescription, bt *pgx.Batch) error {
				var err error
				starPaged, err = star.Paged(len(desc.Fields))
				page(bt, starPaged)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("star-known", func(b *testing.B) {
		for b.Loop() {
			if err := f.door.Store().Batch(ctx, tx, func(bt *pgx.Batch) { page(bt, starPaged) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, bb := range []struct{ name, sql string }{{"door", benchSQL}, {"door-star", starSQL}} {
		b.Run(bb.name, func(b *testing.B) {
			caller := reports.Caller{Person: "service:bench", Client: "bench", Tools: []string{analyst.ToolName}}
			args, _ := json.Marshal(map[string]any{"sql": bb.sql})
			for b.Loop() {
				if a := f.door.Call(ctx, caller, args); a.Refused {
					b.Fatalf("%+v", a.Body)
				}
			}
		})
	}
}
