package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"plumbline/catalog"
	"plumbline/internal/pgtest"
	"plumbline/internal/query"
	"plumbline/reports/ask"
)

// rolledPlans draws floor plans a rollup may serve: one to three metrics
// that each read one rolled-up source, by team or over time or in total,
// over periods of a day to two months anywhere in the floor's data.
func rolledPlans(t *testing.T, cat *catalog.Catalog, db *pgtest.DB, rng *rand.Rand, n int) []*ask.Plan {
	t.Helper()
	var metrics []*catalog.Metric
	for _, m := range cat.Metrics() {
		if srcs := m.Sources(); len(srcs) == 1 && srcs[0].Rollup != "" {
			metrics = append(metrics, m)
		}
	}
	if len(metrics) < 3 {
		t.Fatalf("the demo catalogue rolls up the sources of %d metrics; want several", len(metrics))
	}
	groups := []string{"", catalog.GroupTeam, catalog.GroupDay, catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter}
	plans := make([]*ask.Plan, n)
	for i := range plans {
		picked := rng.Perm(len(metrics))[:1+rng.IntN(3)]
		var ms []*catalog.Metric
		for _, j := range picked {
			ms = append(ms, metrics[j])
		}
		back := rng.IntN(380)
		if i%2 == 0 {
			back = rng.IntN(20) // half of them over the last weeks
		}
		end := db.Now.AddDate(0, 0, -back)
		plans[i] = &ask.Plan{Catalog: cat, Metrics: ms, Scope: ask.Scope{Kind: ask.ScopeFloor, Name: "the floor"},
			Period: ask.Period{Start: end.AddDate(0, 0, -rng.IntN(60)), End: end}, Today: db.Now,
			GroupBy: groups[rng.IntN(len(groups))], Limit: 200}
	}
	return plans
}

func runAll(t *testing.T, st interface {
	Run(context.Context, ...*ask.Plan) ([]*ask.Result, error)
}, plans []*ask.Plan) []*ask.Result {
	t.Helper()
	out := make([]*ask.Result, len(plans))
	for i, p := range plans {
		res, err := st.Run(context.Background(), p)
		if err != nil {
			t.Fatalf("plan %d: %v", i, err)
		}
		out[i] = res[0]
	}
	return out
}

// The floor's reports read from the rollups equal the same reports read
// from every agent-day: for random plans, the figures read while the
// rollups are fresh, read again once their loads no longer match, and read
// once the server has built them again, agree row by row. That the rollups
// were what was read shows when one of their rows is changed.
func TestRollupsAgreeWithTheAgentDays(t *testing.T) {
	db := pgtest.NewDB(t)
	cat := demo(t)
	st := open(t, db, cat, nil)
	conn := db.Conn(t)
	ctx := context.Background()
	var built int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+query.RollupsRelation+" WHERE row_count > 0").Scan(&built); err != nil {
		t.Fatal(err)
	}
	if built != 3 {
		t.Fatalf("setup built %d rollups; want the demo's 3", built)
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	plans := rolledPlans(t, cat, db, rand.New(rand.NewPCG(seed, 45)), 80)
	rolled := runAll(t, st, plans)

	if _, err := conn.Exec(ctx, "UPDATE "+query.RollupsRelation+" SET loads = 'built from other loads'"); err != nil {
		t.Fatal(err)
	}
	agree := func(what string, got []*ask.Result) {
		t.Helper()
		for i := range plans {
			if !reflect.DeepEqual(got[i].Rows, rolled[i].Rows) || !reflect.DeepEqual(got[i].LeftOut, rolled[i].LeftOut) {
				t.Errorf("%s, plan %d (%v by %q over %s to %s) differs from the rollups':\n got  %s\n want %s", what, i,
					plans[i].Metrics[0].ID, plans[i].GroupBy, plans[i].Period.Start.Format("2006-01-02"), plans[i].Period.End.Format("2006-01-02"),
					rows(got[i]), rows(rolled[i]))
			}
		}
	}
	agree("read from every agent-day", runAll(t, st, plans))

	again, err := st.RefreshRollups(ctx)
	if err != nil {
		t.Fatalf("build the rollups again as the reader: %v", err)
	}
	if len(again) != 3 {
		t.Fatalf("the refresh built %v; want the 3 rollups whose loads no longer matched", again)
	}
	if again, err := st.RefreshRollups(ctx); err != nil || len(again) != 0 {
		t.Fatalf("a second refresh built %v (%v); want none, nothing having changed", again, err)
	}
	agree("read from the rollups built again", runAll(t, st, plans))

	// A load of a day runs again and changes its figures: until the
	// rollup is built again, reports read the agent-days.
	day := db.Now.AddDate(0, 0, -25)
	for _, stmt := range []string{
		"UPDATE metrics.agent_sales_daily SET submitted = submitted + 1 WHERE day = $1",
		"UPDATE metrics.load_runs SET finished_at = now() WHERE relation = 'metrics.agent_sales_daily' AND covers_day = $1",
	} {
		if tag, err := conn.Exec(ctx, stmt, day); err != nil || tag.RowsAffected() == 0 {
			t.Fatalf("%s: %v (%d rows)", stmt, err, tag.RowsAffected())
		}
	}
	reloaded := runAll(t, st, plans)
	moved := 0
	for i := range plans {
		if !reflect.DeepEqual(reloaded[i].Rows, rolled[i].Rows) {
			moved++
		}
	}
	if moved == 0 {
		t.Fatalf("no plan's figures moved when %s's sales changed; the reports read a rollup built before", day.Format("2006-01-02"))
	}
	if again, err := st.RefreshRollups(ctx); err != nil || len(again) != 1 || again[0].Source != "agent_sales_daily" {
		t.Fatalf("the refresh built %v (%v); want the sales rollup alone", again, err)
	}
	rolled = runAll(t, st, plans)
	agree("read from every agent-day after the load ran again", reloaded)
	t.Logf("%d plans agree, read both ways; %d of them moved with the day's load", len(plans), moved)

	submitted, _ := cat.Metric("submitted_sales")
	total := &ask.Plan{Catalog: cat, Metrics: []*catalog.Metric{submitted}, Scope: ask.Scope{Kind: ask.ScopeFloor},
		Period: ask.Period{Start: db.Now.AddDate(0, 0, -30), End: db.Now.AddDate(0, 0, -3)}, Today: db.Now, Limit: 1}
	before := runAll(t, st, []*ask.Plan{total})[0]
	tag, err := conn.Exec(ctx, fmt.Sprintf(`UPDATE %s."agent_sales_daily:team_day" SET "submitted_sales:p0" = "submitted_sales:p0" + 1 WHERE day BETWEEN $1 AND $2`,
		query.SeenSchema), total.Period.Start, total.Period.End)
	if err != nil {
		t.Fatal(err)
	}
	after := runAll(t, st, []*ask.Plan{total})[0]
	if got, want := *after.Rows[0].Sums[0]-*before.Rows[0].Sums[0], float64(tag.RowsAffected()); got != want {
		t.Errorf("after adding one to each of %d rollup rows the floor's submitted sales moved by %v; the report does not read the rollup", tag.RowsAffected(), got)
	}
}

func rows(r *ask.Result) string {
	s := fmt.Sprint(r.LeftOut)
	for _, row := range r.Rows {
		s += " " + row.Key + ":"
		for _, v := range row.Sums {
			if v == nil {
				s += " nil"
			} else {
				s += fmt.Sprintf(" %g", *v)
			}
		}
		s += fmt.Sprint(row.Kept, row.LeftOut)
	}
	return s
}
