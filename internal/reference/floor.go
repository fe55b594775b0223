package reference

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
)

// NY is the floor's time zone.
var NY = mustZone("America/New_York")

// Floor is the demo floor's raw tables, as read.
type Floor struct {
	Teams     []Team
	Agents    []Agent
	Moves     map[string][]Move     // by agent, in date order
	Decisions map[string][]Decision // by team, in date order
	Time      map[string]map[time.Time]TimeRow
	Sales     map[string]map[time.Time]SalesRow
	Quality   map[string]map[time.Time]QualityRow
	Board     map[string]map[time.Time]int // sales per agent per New York day
	Loads     map[string][]Load            // by relation
	Targets   map[string][]TargetRow       // by team/metric/kind/start, in the order set
}

// TargetRow is one version of a row of analytics.targets.
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
		Quality: map[string]map[time.Time]QualityRow{}, Board: map[string]map[time.Time]int{}, Loads: map[string][]Load{},
		Targets: map[string][]TargetRow{}}
	each := func(table string, scan func(pgx.Rows) error) error {
		rows, err := conn.Query(ctx, "SELECT * FROM "+table)
		if err != nil {
			return fmt.Errorf("read %s: %w", table, err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return fmt.Errorf("read %s: %w", table, err)
			}
		}
		return rows.Err()
	}
	var lead *string
	var key, team string
	var day time.Time
	steps := []struct {
		table string
		scan  func(pgx.Rows) error
	}{
		{"analytics.dim_team", func(r pgx.Rows) error {
			var t Team
			err := r.Scan(&t.Key, &t.Name, &lead)
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
			var m Move
			err := r.Scan(&key, &m.Team, &m.From)
			f.Moves[key] = append(f.Moves[key], m)
			return err
		}},
		{"analytics.team_floor_history", func(r pgx.Rows) error {
			var d Decision
			var by, why string
			err := r.Scan(&team, &d.From, &d.Counts, &by, &why)
			f.Decisions[team] = append(f.Decisions[team], d)
			return err
		}},
		{"metrics.agent_time_daily", func(r pgx.Rows) error {
			var t TimeRow
			err := r.Scan(&key, &day, &t.Logged, &t.Available, &t.Talk)
			put(f.Time, key, day, t)
			return err
		}},
		{"metrics.agent_sales_daily", func(r pgx.Rows) error {
			var s SalesRow
			err := r.Scan(&key, &day, &s.Submitted, &s.Lost, &s.Approved)
			put(f.Sales, key, day, s)
			return err
		}},
		{"metrics.agent_quality_daily", func(r pgx.Rows) error {
			var q QualityRow
			err := r.Scan(&key, &day, &q.Passed, &q.Failed)
			put(f.Quality, key, day, q)
			return err
		}},
		{"live.sales_board", func(r pgx.Rows) error {
			var at time.Time
			var n int
			err := r.Scan(&key, &at, &n)
			d := civil(at.In(NY))
			if f.Board[key] == nil {
				f.Board[key] = map[time.Time]int{}
			}
			f.Board[key][d] += n
			return err
		}},
		{"analytics.targets", func(r pgx.Rows) error {
			var metric, kind, by, why string
			var start time.Time
			var t TargetRow
			err := r.Scan(&team, &metric, &kind, &start, &t.Value, &by, &t.SetAt, &why)
			f.AddTarget(team, metric, kind, start, t)
			return err
		}},
		{"metrics.load_runs", func(r pgx.Rows) error {
			var l Load
			var rel string
			var started time.Time
			var n *int
			err := r.Scan(&rel, &l.Day, &started, &l.Finished, &n)
			f.Loads[rel] = append(f.Loads[rel], l)
			return err
		}},
	}
	for _, s := range steps {
		if err := each(s.table, s.scan); err != nil {
			return nil, err
		}
	}
	sort.Slice(f.Teams, func(i, j int) bool { return f.Teams[i].Key < f.Teams[j].Key })
	sort.Slice(f.Agents, func(i, j int) bool { return f.Agents[i].Key < f.Agents[j].Key })
	for _, ms := range f.Moves {
		sort.Slice(ms, func(i, j int) bool { return ms[i].From.Before(ms[j].From) })
	}
	for _, ds := range f.Decisions {
		sort.Slice(ds, func(i, j int) bool { return ds[i].From.Before(ds[j].From) })
	}
	return f, nil
}

// AddTarget adds a version of team's target for metric over the week or
// month (kind) from start, keeping each target's versions in the order set.
func (f *Floor) AddTarget(team, metric, kind string, start time.Time, t TargetRow) {
	if f.Targets == nil {
		f.Targets = map[string][]TargetRow{}
	}
	k := targetKey(team, metric, kind, start)
	vs := f.Targets[k]
	i := sort.Search(len(vs), func(i int) bool { return vs[i].SetAt.After(t.SetAt) })
	f.Targets[k] = slices.Insert(vs, i, t)
}

func targetKey(team, metric, kind string, start time.Time) string {
	return team + "/" + metric + "/" + kind + "/" + start.Format(time.DateOnly)
}

func put[T any](m map[string]map[time.Time]T, key string, day time.Time, v T) {
	if m[key] == nil {
		m[key] = map[time.Time]T{}
	}
	m[key][day] = v
}

// teamOn is the team an agent was on on a day: the latest move on or
// before it, or none.
func (f *Floor) teamOn(agent string, d time.Time) string {
	team := ""
	for _, m := range f.Moves[agent] {
		if !m.From.After(d) {
			team = m.Team
		}
	}
	return team
}

// onFloor says whether a team counted as the floor on a day: its latest
// decision on or before it.
func (f *Floor) onFloor(team string, d time.Time) bool {
	counts := false
	for _, x := range f.Decisions[team] {
		if !x.From.After(d) {
			counts = x.Counts
		}
	}
	return counts
}

// employed says whether an agent was on the staff on a day.
func (a Agent) employed(d time.Time) bool {
	return !d.Before(a.Hired) && (a.Left == nil || !d.After(*a.Left))
}

func (f *Floor) agent(key string) (Agent, bool) {
	for _, a := range f.Agents {
		if a.Key == key {
			return a, true
		}
	}
	return Agent{}, false
}

func (f *Floor) teamName(key string) string {
	for _, t := range f.Teams {
		if t.Key == key {
			return t.Name
		}
	}
	return ""
}

func civil(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func mustZone(name string) *time.Location {
	z, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return z
}
