package demofloor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"plumbline/reports/ask"
)

// Load replaces the demo floor's rows in the database with f, in one
// transaction, using COPY, then vacuums the relations reports read so that
// their covering indexes answer without visiting the tables.
func Load(ctx context.Context, conn *pgx.Conn, f *Floor) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `TRUNCATE analytics.dim_team, analytics.dim_agent,
			analytics.agent_team_history, analytics.team_floor_history,
			metrics.agent_time_daily, metrics.agent_sales_daily, metrics.agent_quality_daily,
			live.sales_board, metrics.load_runs, crm.member_calls, analytics.targets`); err != nil {
			return fmt.Errorf("clear demo floor: %w", err)
		}
		for _, t := range f.tables() {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{t.schema, t.name}, t.columns, pgx.CopyFromRows(t.rows)); err != nil {
				return fmt.Errorf("load %s.%s: %w", t.schema, t.name, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// VACUUM cannot run inside a transaction.
	_, err = conn.Exec(ctx, "VACUUM ANALYZE analytics.dim_agent, analytics.agent_team_history, analytics.team_floor_history, "+
		"metrics.agent_time_daily, metrics.agent_sales_daily, metrics.agent_quality_daily, live.sales_board, metrics.load_runs")
	return err
}

type table struct {
	schema, name string
	columns      []string
	rows         [][]any
}

func (f *Floor) tables() []table {
	return []table{
		{"analytics", "dim_team", []string{"team_key", "team_name", "lead_agent_key"},
			rowsOf(f.Teams, func(t Team) []any { return []any{t.Key, t.Name, t.Lead} })},
		{"analytics", "dim_agent", []string{"agent_key", "full_name", "email", "hired_on", "left_on"},
			rowsOf(f.Agents, func(a Agent) []any { return []any{a.Key, a.Name, a.Email, a.Hired, a.Left} })},
		{"analytics", "agent_team_history", []string{"agent_key", "team_key", "effective_from"},
			rowsOf(f.Memberships, func(m ask.Membership) []any { return []any{m.Agent, m.Team, m.From} })},
		{"analytics", "team_floor_history", []string{"team_key", "effective_from", "counts_as_sales", "decided_by", "reason"},
			rowsOf(f.Decisions, func(d ask.FloorDecision) []any {
				return []any{d.Team, d.From, d.CountsAsSales, d.DecidedBy, d.Reason}
			})},
		{"metrics", "agent_time_daily", []string{"agent_key", "day", "logged_hours", "available_hours", "talk_hours"},
			rowsOf(f.Time, func(r TimeRow) []any { return []any{r.Agent, r.Day, r.Logged, r.Available, r.Talk} })},
		{"metrics", "agent_sales_daily", []string{"agent_key", "day", "submitted", "lost", "approved"},
			rowsOf(f.Sales, func(r SalesRow) []any { return []any{r.Agent, r.Day, r.Submitted, r.Lost, r.Approved} })},
		{"metrics", "agent_quality_daily", []string{"agent_key", "day", "audits_passed", "audits_failed"},
			rowsOf(f.Quality, func(r QualityRow) []any { return []any{r.Agent, r.Day, r.Passed, r.Failed} })},
		{"live", "sales_board", []string{"agent_key", "entered_at", "sales"},
			rowsOf(f.Board, func(b BoardEntry) []any { return []any{b.Agent, b.EnteredAt, b.Sales} })},
		{"metrics", "load_runs", []string{"relation", "covers_day", "started_at", "finished_at", "row_count"},
			rowsOf(f.Loads, func(r LoadRun) []any {
				var finished *time.Time
				if !r.Finished.IsZero() {
					finished = &r.Finished
				}
				return []any{r.Relation, r.Day, r.Started, finished, r.Rows}
			})},
		{"analytics", "targets", []string{"team_key", "metric", "period_kind", "period_start", "value", "set_by", "set_at", "reason"},
			rowsOf(f.Targets, func(t Target) []any {
				return []any{t.Team, t.Metric, t.Kind, t.Start, t.Value, t.SetBy, t.SetAt, t.Reason}
			})},
		{"crm", "member_calls", []string{"call_id", "agent_key", "member_name", "member_phone", "date_of_birth", "transcript", "recording_url"},
			rowsOf(f.Calls, func(c MemberCall) []any {
				return []any{c.ID, c.Agent, c.MemberName, c.Phone, c.DateOfBirth, c.Transcript, c.RecordingURL}
			})},
	}
}

func rowsOf[T any](items []T, row func(T) []any) [][]any {
	out := make([][]any, len(items))
	for i, it := range items {
		out[i] = row(it)
	}
	return out
}

// Digest is a fingerprint of every row of the floor: two floors with the
// same digest load the same data.
func (f *Floor) Digest() string {
	h := sha256.New()
	for _, t := range f.tables() {
		fmt.Fprintln(h, t.schema, t.name, t.columns)
		for _, r := range t.rows {
			for _, v := range r {
				switch v := v.(type) {
				case *float64:
					if v != nil {
						fmt.Fprint(h, *v)
					}
				case *int:
					if v != nil {
						fmt.Fprint(h, *v)
					}
				case *time.Time:
					if v != nil {
						fmt.Fprint(h, v.Unix())
					}
				case time.Time:
					fmt.Fprint(h, v.Unix())
				default:
					fmt.Fprint(h, v)
				}
				h.Write([]byte{0})
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
