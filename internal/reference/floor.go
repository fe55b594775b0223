package reference

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// NY is the floor's time zone.
var NY = mustZone("America/New_York")

// Floor is the demo floor's raw tables, as read.
type Floor struct {
	Teams     []Team
	Agents    []Agent
	Moves     map[string][]Move     // by agent
	Decisions map[string][]Decision // by team
	Time      map[string]map[time.Time]TimeRow
	Sales     map[string]map[time.Time]SalesRow
	Quality   map[string]map[time.Time]QualityRow
	Board     map[string]map[time.Time]int // sales per agent per New York day
	Loads     map[string][]Load            // by relation
	Targets   []Target                     // every version of every target

	seen *world // the tables as evaluated at one moment, kept for the next call
}

// Target is a row of analytics.targets: one version of a team's target for
// a metric over the week or month from Start.
type Target struct {
	Team, Metric, Kind string
	Start              time.Time
	Value              float64
	SetAt              time.Time
}

// TargetRow is the version part of a row of analytics.targets.
type TargetRow struct {
	Value float64
	SetAt time.Time
}

// Team is a row of analytics.dim_team.
type Team struct{ Key, Name string }

// Agent is a row of analytics.dim_agent.
type Agent struct {
	Key, Name, Email string
	Hired            time.Time
	Left             *time.Time
}

// Move is a row of analytics.agent_team_history.
type Move struct {
	Team string
	From time.Time
}

// Decision is a row of analytics.team_floor_history.
type Decision struct {
	From   time.Time
	Counts bool
}

// TimeRow is a row of metrics.agent_time_daily.
type TimeRow struct{ Logged, Available, Talk *float64 }

// SalesRow is a row of metrics.agent_sales_daily.
type SalesRow struct {
	Submitted, Lost int
	Approved        *int
}

// QualityRow is a row of metrics.agent_quality_daily.
type QualityRow struct{ Passed, Failed int }

// Load is a row of metrics.load_runs.
type Load struct {
	Day      time.Time
	Finished *time.Time
}

// Read loads the raw tables with plain SELECT * statements.
func Read(ctx context.Context, conn *pgx.Conn) (*Floor, error) {
	f := &Floor{Moves: map[string][]Move{}, Decisions: map[string][]Decision{},
		Time: map[string]map[time.Time]TimeRow{}, Sales: map[string]map[time.Time]SalesRow{},
		Quality: map[string]map[time.Time]QualityRow{}, Board: map[string]map[time.Time]int{}, Loads: map[string][]Load{}}
	var key, team, text string
	var day, at time.Time
	var n int
	var optional *string
	tables := []struct {
		name string
		row  func(pgx.Rows) error
	}{
		{"analytics.dim_team", func(r pgx.Rows) error {
			var t Team
			err := r.Scan(&t.Key, &t.Name, &optional)
			f.Teams = append(f.Teams, t)
			return err
		}},
		{"analytics.dim_agent", func(r pgx.Rows) error {
			var a Agent
			err := r.Scan(&a.Key, &a.Name, &a.Email, &a.Hired, &a.Left)
			f.Agents = append(f.Agents, a)
			return err
		}},
		{"analytics.agent_team_history", func(r pgx.Rows) error {
			err := r.Scan(&key, &team, &day)
			f.Moves[key] = append(f.Moves[key], Move{team, day})
			return err
		}},
		{"analytics.team_floor_history", func(r pgx.Rows) error {
			var counts bool
			err := r.Scan(&team, &day, &counts, &text, &text)
			f.Decisions[team] = append(f.Decisions[team], Decision{day, counts})
			return err
		}},
		{"metrics.agent_time_daily", func(r pgx.Rows) error {
			var t TimeRow
			err := r.Scan(&key, &day, &t.Logged, &t.Available, &t.Talk)
			byDay(f.Time, key)[day] = t
			return err
		}},
		{"metrics.agent_sales_daily", func(r pgx.Rows) error {
			var s SalesRow
			err := r.Scan(&key, &day, &s.Submitted, &s.Lost, &s.Approved)
			byDay(f.Sales, key)[day] = s
			return err
		}},
		{"metrics.agent_quality_daily", func(r pgx.Rows) error {
			var q QualityRow
			err := r.Scan(&key, &day, &q.Passed, &q.Failed)
			byDay(f.Quality, key)[day] = q
			return err
		}},
		{"live.sales_board", func(r pgx.Rows) error {
			err := r.Scan(&key, &at, &n)
			local := at.In(NY)
			byDay(f.Board, key)[time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)] += n
			return err
		}},
		{"analytics.targets", func(r pgx.Rows) error {
			var t Target
			var why, by string
			err := r.Scan(&t.Team, &t.Metric, &t.Kind, &t.Start, &t.Value, &by, &t.SetAt, &why)
			f.Targets = append(f.Targets, t)
			return err
		}},
		{"metrics.load_runs", func(r pgx.Rows) error {
			var l Load
			var rel string
			var started time.Time
			var rows *int
			err := r.Scan(&rel, &l.Day, &started, &l.Finished, &rows)
			f.Loads[rel] = append(f.Loads[rel], l)
			return err
		}},
	}
	for _, t := range tables {
		if err := readAll(ctx, conn, t.name, t.row); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func readAll(ctx context.Context, conn *pgx.Conn, table string, row func(pgx.Rows) error) error {
	rows, err := conn.Query(ctx, "SELECT * FROM "+table)
	if err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return fmt.Errorf("read %s: %w", table, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	return nil
}

// AddTarget adds a version of team's target for metric over the week or
// month (kind) from start.
func (f *Floor) AddTarget(team, metric, kind string, start time.Time, t TargetRow) {
	f.Targets = append(f.Targets, Target{Team: team, Metric: metric, Kind: kind, Start: start, Value: t.Value, SetAt: t.SetAt})
	f.seen = nil
}

func byDay[T any](m map[string]map[time.Time]T, key string) map[time.Time]T {
	if m[key] == nil {
		m[key] = map[time.Time]T{}
	}
	return m[key]
}

func mustZone(name string) *time.Location {
	z, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return z
}
