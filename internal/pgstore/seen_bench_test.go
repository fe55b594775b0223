package pgstore_test

import (
	"context"
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
	"plumbline/reports"
)

// BenchmarkReachFilter measures what the views that filter figures by reach
// cost a report's statement, on the demo floor at 1× and 10× (96 and 960
// agents): each report as plan_cache_mode force_generic_plan runs it,
// reading the sources themselves (raw), and through the views for a caller
// who sees the floor and for a team lead who sees one team.
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
	if _, err := conn.Exec(ctx, "ANALYZE; SET plan_cache_mode = force_generic_plan"); err != nil {
		b.Fatal(err)
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	period := reports.Period{Start: today.AddDate(0, 0, -29), End: today.AddDate(0, 0, -2)}
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
		plan reports.Plan
	}{
		{"sales_by_team", reports.Plan{Metrics: sales, Scope: reports.Scope{Kind: reports.ScopeFloor}, GroupBy: "team", Limit: 51}},
		{"team_by_week", reports.Plan{Metrics: sales, Scope: reports.Scope{Kind: reports.ScopeTeam, Key: floor.Teams[0].Key},
			GroupBy: "week", Limit: 51}},
		{"hours_by_agent", reports.Plan{Metrics: []*catalog.Metric{metric("logged_hours"), metric("talk_share")},
			Scope: reports.Scope{Kind: reports.ScopeTeam, Key: floor.Teams[0].Key}, GroupBy: "agent", Limit: 51}},
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
		for _, v := range []struct{ name, person, sql string }{
			{"raw", "", raw}, {"floor", "boss", stmt}, {"team", "lead", stmt},
		} {
			b.Run(p.name+"/"+v.name, func(b *testing.B) {
				if _, err := conn.Exec(ctx, "SELECT set_config($1, $2, false), set_config($3, $4, false), set_config($5, 'floor', false)",
					query.CallerSetting, v.person, query.DaySetting, today.Format(time.DateOnly), query.DefaultReachSetting); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					rows, err := conn.Query(ctx, v.sql, args...)
					if err != nil {
						b.Fatal(err)
					}
					rows.Close()
					if rows.Err() != nil {
						b.Fatal(rows.Err())
					}
				}
			})
		}
	}
}
