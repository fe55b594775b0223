package pgstore_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/demofloor"
	"plumbline/internal/pgtest"
	"plumbline/internal/provision"
	"plumbline/internal/query"
	"plumbline/reports/ask"
)

// BenchmarkReachFilter measures what the views that filter figures by reach
// cost a report's statement, on the demo floor at 1× and 10× (96 and 960
// agents): each report as plan_cache_mode force_generic_plan runs it,
// reading the sources themselves (raw), and through the views for a caller
// who sees the floor and for a team lead who sees one team, in rounds that
// run the three in turn. It reports each one's median time and the median
// within a round of its ratio to raw (floor/raw, team/raw), which drift on
// a shared machine does not move.
func BenchmarkReachFilter(b *testing.B) {
	for _, agents := range []int{demofloor.DefaultAgents, 10 * demofloor.DefaultAgents} {
		b.Run(strconv.Itoa(agents)+"_agents", func(b *testing.B) { benchReachFilter(b, agents) })
	}
}

func benchReachFilter(b *testing.B, agents int) {
	ctx := context.Background()
	db := pgtest.NewEmptyDB(b)
	now := pgtest.Now
	floor, err := demofloor.Generate(demofloor.Options{Seed: pgtest.Seed, Now: now, Agents: agents})
	if err != nil {
		b.Fatal(err)
	}
	conn := db.Conn(b)
	cat := pgtest.Catalog(b)
	if _, err := provision.Database(ctx, conn, provision.Plan{Demo: true, Roles: pgtest.Roles,
		Fill: func(ctx context.Context, conn *pgx.Conn) error { return demofloor.Load(ctx, conn, floor) }}); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO plumbline.reach (person_id, sees, team_key, from_day, set_by, reason)
		VALUES ('lead', 'team', $1, '2020-01-01', 'bench', 'a team lead')`, floor.Teams[0].Key); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	period := ask.Period{Start: today.AddDate(0, 0, -29), End: today.AddDate(0, 0, -2)}
	metric := func(id string) *catalog.Metric {
		m, ok := cat.Metric(id)
		if !ok {
			b.Fatalf("no metric %s", id)
		}
		return m
	}
	sales := []*catalog.Metric{metric("submitted_sales"), metric("close_rate")}
	for _, p := range []struct {
		name string
		plan ask.Plan
	}{
		{"sales_by_team", ask.Plan{Metrics: sales, Scope: ask.Scope{Kind: ask.ScopeFloor}, GroupBy: "team", Limit: 51}},
		{"team_by_week", ask.Plan{Metrics: sales, Scope: ask.Scope{Kind: ask.ScopeTeam, Key: floor.Teams[0].Key},
			GroupBy: "week", Limit: 51}},
		{"hours_by_agent", ask.Plan{Metrics: []*catalog.Metric{metric("logged_hours"), metric("talk_share")},
			Scope: ask.Scope{Kind: ask.ScopeTeam, Key: floor.Teams[0].Key}, GroupBy: "agent", Limit: 51}},
	} {
		p.plan.Catalog, p.plan.Period, p.plan.Today = cat, period, today
		stmt, args, err := query.Build(&p.plan)
		if err != nil {
			b.Fatal(err)
		}
		raw := stmt
		for _, src := range cat.Sources() {
			raw = strings.ReplaceAll(raw, query.Seen(src)+" ", src.Relation+" ")
		}
		b.Run(p.name, func(b *testing.B) { pairedRounds(b, db, today, raw, stmt, args) })
	}
}

// pairedRounds runs the raw statement and the filtered one for the floor
// manager and for the team lead in turn, each on a connection of its own
// that names its caller, and reports the medians.
func pairedRounds(b *testing.B, db *pgtest.DB, today time.Time, raw, seen string, args []any) {
	ctx := context.Background()
	type variant struct {
		name, person, sql string
		conn              *pgx.Conn
		times             []float64
	}
	vs := []*variant{{name: "raw", sql: raw}, {name: "floor", person: "boss", sql: seen}, {name: "team", person: "lead", sql: seen}}
	for _, v := range vs {
		v.conn = db.Conn(b)
		if _, err := v.conn.Exec(ctx, "SELECT set_config('plan_cache_mode', 'force_generic_plan', false), set_config($1, $2, false), "+
			"set_config($3, $4, false), set_config($5, 'floor', false)",
			query.CallerSetting, v.person, query.DaySetting, today.Format(time.DateOnly), query.DefaultReachSetting); err != nil {
			b.Fatal(err)
		}
	}
	run := func(v *variant) time.Duration {
		start := time.Now()
		rows, err := v.conn.Query(ctx, v.sql, args...)
		if err != nil {
			b.Fatal(err)
		}
		rows.Close()
		if rows.Err() != nil {
			b.Fatal(rows.Err())
		}
		return time.Since(start)
	}
	for _, v := range vs { // prepare and warm
		run(v)
	}
	var floorRatio, teamRatio []float64
	round := 0
	for b.Loop() {
		var took [3]float64
		for i := range vs {
			j := (i + round) % len(vs) // rotate who goes first
			took[j] = float64(run(vs[j]))
			vs[j].times = append(vs[j].times, took[j])
		}
		floorRatio, teamRatio = append(floorRatio, took[1]/took[0]), append(teamRatio, took[2]/took[0])
		round++
	}
	for _, v := range vs {
		b.ReportMetric(median(v.times)/1e6, v.name+"-ms")
	}
	b.ReportMetric(median(floorRatio), "floor/raw")
	b.ReportMetric(median(teamRatio), "team/raw")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
