package mcpserver_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/pgtest"
)

// Every trap of the demo floor moves the figure a naive query gets: for
// each, the naive figure (plain SQL, the way a hurried analyst writes it)
// differs from the right one (plain SQL, the way the rule says), and
// plumbline answers with the right one.
func TestEveryTrapMovesTheNaiveFigure(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	ctx := context.Background()
	one := func(query string, args ...any) *float64 {
		t.Helper()
		var v *float64
		if err := f.sql.QueryRow(ctx, query, args...).Scan(&v); err != nil {
			t.Fatalf("%v\n%s", err, query)
		}
		return v
	}
	same := func(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && near(*a, *b) }
	check := func(t *testing.T, what string, got any, right, naive *float64) {
		t.Helper()
		if same(right, naive) {
			t.Fatalf("%s: the naive figure equals the right one (%v); the trap does not bite", what, show(right))
		}
		g, _ := got.(float64)
		if got == nil && right != nil || got != nil && (right == nil || !near(g, *right)) {
			t.Errorf("%s: plumbline says %v, want %v (a naive query says %v)", what, got, show(right), show(naive))
		}
		t.Logf("%s: right %v, naive %v", what, show(right), show(naive))
	}

	t.Run("an agent-day counts for the team of that day", func(t *testing.T) {
		var moved time.Time
		f.sql.QueryRow(ctx, `SELECT max(h.effective_from) FROM analytics.agent_team_history h JOIN analytics.dim_agent a USING (agent_key)
			WHERE a.full_name = 'Tom Becker'`).Scan(&moved)
		week := moved.AddDate(0, 0, 1-int(moved.Weekday()))
		right := one(`SELECT sum(submitted)::float8 FROM metrics.agent_sales_daily s WHERE day BETWEEN $1 AND $1::date + 6 AND `+pgtest.TeamOfDay+` = 'hawks'`, week)
		naive := one(`SELECT sum(submitted)::float8 FROM metrics.agent_sales_daily s WHERE day BETWEEN $1 AND $1::date + 6
			AND (SELECT h.team_key FROM analytics.agent_team_history h WHERE h.agent_key = s.agent_key ORDER BY h.effective_from DESC LIMIT 1) = 'hawks'`, week)
		a := report(t, cs, "sales", fmt.Sprintf(`{"who":{"team":"hawks"},"period":{"week":%q},"metrics":["submitted_sales"]}`, dateOf(week)))
		check(t, "the Hawks in the week Tom Becker left them", a.total(t, "submitted_sales"), right, naive)
	})
	t.Run("the floor on a day is the teams that counted that day", func(t *testing.T) {
		var left time.Time
		f.sql.QueryRow(ctx, `SELECT effective_from FROM analytics.team_floor_history WHERE team_key = 'harriers' AND NOT counts_as_sales`).Scan(&left)
		start, end := left.AddDate(0, 0, -7), left.AddDate(0, 0, 6)
		right := one(`SELECT sum(logged_hours)::float8 FROM metrics.agent_time_daily s WHERE day BETWEEN $1 AND $2 AND `+pgtest.OnFloor, start, end)
		naive := one(`SELECT sum(logged_hours)::float8 FROM metrics.agent_time_daily s WHERE day BETWEEN $1 AND $2
			AND (SELECT f.counts_as_sales FROM analytics.team_floor_history f WHERE f.team_key = `+pgtest.TeamOfDay+`
			ORDER BY f.effective_from DESC LIMIT 1)`, start, end)
		a := report(t, cs, "hours", fmt.Sprintf(`{"who":{"floor":true},"period":{"start":%q,"end":%q},"metrics":["logged_hours"]}`, dateOf(start), dateOf(end)))
		check(t, "the floor's hours around the week the Harriers left it", a.total(t, "logged_hours"), right, naive)
	})
	t.Run("two agents whose names nearly collide", func(t *testing.T) {
		naive := one(`SELECT sum(submitted)::float8 FROM metrics.agent_sales_daily WHERE day BETWEEN '2026-11-09' AND '2026-11-15'
			AND agent_key = (SELECT agent_key FROM analytics.dim_agent WHERE full_name ILIKE 'maria lop%' ORDER BY 1 LIMIT 1)`)
		a, _ := call(t, cs, "sales", `{"who":{"agent":"Maria Lop"},"period":{"named":"last_week"}}`)
		if naive == nil || a["rows"] != nil || len(a["candidates"].([]any)) != 2 {
			t.Errorf("a naive match picks one Maria (%v sales); plumbline must return both as candidates and no figure: %v", show(naive), a)
		}
	})
	t.Run("hours not in yet are null, not zero", func(t *testing.T) {
		var agent string
		f.sql.QueryRow(ctx, `SELECT agent_key FROM metrics.agent_time_daily WHERE day = '2026-11-17' AND logged_hours IS NULL ORDER BY 1 LIMIT 1`).Scan(&agent)
		right := one(`SELECT sum(logged_hours)::float8 FROM metrics.agent_time_daily WHERE day = '2026-11-17' AND agent_key = $1`, agent)
		naive := one(`SELECT sum(coalesce(logged_hours, 0))::float8 FROM metrics.agent_time_daily WHERE day = '2026-11-17' AND agent_key = $1`, agent)
		a := report(t, cs, "hours", fmt.Sprintf(`{"who":{"agent":%q},"period":{"day":"2026-11-17"},"metrics":["logged_hours"]}`, agent))
		check(t, "an agent whose hours are not in", a.total(t, "logged_hours"), right, naive)
	})
	t.Run("a day with zero logged hours is no activity", func(t *testing.T) {
		var agent string
		var day time.Time
		f.sql.QueryRow(ctx, `SELECT agent_key, day FROM metrics.agent_time_daily WHERE logged_hours = 0 AND day BETWEEN '2026-10-20' AND '2026-11-10'
			ORDER BY day DESC, 1 LIMIT 1`).Scan(&agent, &day)
		// A naive check calls an agent active on any day with a row.
		naive := one(`SELECT count(*)::float8 FROM metrics.agent_time_daily WHERE agent_key = $1 AND day = $2`, agent, day)
		right := one(`SELECT count(*) FILTER (WHERE logged_hours > 0)::float8 FROM metrics.agent_time_daily WHERE agent_key = $1 AND day = $2`, agent, day)
		a := report(t, cs, "hours", fmt.Sprintf(`{"who":{"agent":%q},"period":{"day":%q},"group_by":"day","metrics":["logged_hours"]}`, agent, dateOf(day)))
		active := 1.0
		if a.rows()[0][a.col(t, "no_activity")] == true {
			active = 0
		}
		check(t, "an agent on a day with zero hours, as days active", active, right, naive)
	})
	t.Run("approvals settle slowly", func(t *testing.T) {
		right := one(`SELECT sum(approved)::float8 / sum(submitted) FILTER (WHERE approved IS NOT NULL) FROM metrics.agent_sales_daily s
			WHERE day BETWEEN '2026-10-21' AND '2026-11-17' AND ` + pgtest.OnFloor)
		naive := one(`SELECT sum(coalesce(approved, 0))::float8 / sum(submitted) FROM metrics.agent_sales_daily s
			WHERE day BETWEEN '2026-10-21' AND '2026-11-17' AND ` + pgtest.OnFloor)
		a := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_28_days"},"metrics":["approval_rate"]}`)
		check(t, "the floor's approval rate over the last 28 days", a.total(t, "approval_rate"), right, naive)
	})
	t.Run("today's sales are on the live board, not in the nightly build", func(t *testing.T) {
		right := one(`SELECT sum(sales)::float8 FROM live.sales_board b WHERE ` + boardDay + ` = '2026-11-18'
			AND (SELECT h.team_key FROM analytics.agent_team_history h WHERE h.agent_key = b.agent_key ORDER BY h.effective_from DESC LIMIT 1) = 'ospreys'`)
		naive := one(`SELECT coalesce(sum(submitted), 0)::float8 FROM metrics.agent_sales_daily s WHERE day = '2026-11-18' AND ` + pgtest.TeamOfDay + ` = 'ospreys'`)
		a := report(t, cs, "sales", `{"who":{"team":"ospreys"},"period":{"named":"today"}}`)
		check(t, "the Ospreys' sales today", a.total(t, "board_sales"), right, naive)
	})
	t.Run("a day is a day in New York, not in UTC", func(t *testing.T) {
		// The evening shift posts past midnight UTC: the latest weekday on
		// which that moves its day's count, summed by UTC date.
		var day time.Time
		f.sql.QueryRow(ctx, `WITH ny AS (SELECT `+boardDay+` AS d, sum(sales) AS n FROM live.sales_board WHERE agent_key = 'a004' GROUP BY 1),
			utc AS (SELECT (entered_at AT TIME ZONE 'UTC')::date AS d, sum(sales) AS n FROM live.sales_board WHERE agent_key = 'a004' GROUP BY 1)
			SELECT max(ny.d) FROM ny LEFT JOIN utc USING (d)
			WHERE ny.d < '2026-11-18' AND extract(isodow FROM ny.d) < 6 AND ny.n IS DISTINCT FROM utc.n`).Scan(&day)
		right := one(`SELECT coalesce(sum(sales), 0)::float8 FROM live.sales_board WHERE agent_key = 'a004' AND `+boardDay+` = $1`, day)
		naive := one(`SELECT coalesce(sum(sales), 0)::float8 FROM live.sales_board WHERE agent_key = 'a004' AND (entered_at AT TIME ZONE 'UTC')::date = $1`, day)
		a := report(t, cs, "sales", fmt.Sprintf(`{"who":{"agent":"a004"},"period":{"day":%q},"metrics":["board_sales"]}`, dateOf(day)))
		check(t, "an evening-shift agent's board sales on "+dateOf(day), a.total(t, "board_sales"), right, naive)
	})
	for _, day := range []string{"2026-11-01", "2026-03-08"} {
		t.Run("the day the clocks change is not 24 hours: "+day, func(t *testing.T) {
			right := one(`SELECT sum(sales)::float8 FROM live.sales_board WHERE `+boardDay+` = $1::date`, day)
			naive := one(`SELECT sum(sales)::float8 FROM live.sales_board WHERE entered_at >= ($1::date::timestamp AT TIME ZONE 'America/New_York')
				AND entered_at < ($1::date::timestamp AT TIME ZONE 'America/New_York') + interval '24 hours'`, day)
			teams := f.sqlKeys(t, `SELECT team_key FROM analytics.dim_team ORDER BY 1`)
			check(t, "the whole board on "+day, everything(t, cs, teams, day), right, naive)
		})
	}
}

// everything is the board's count for a day over every team, on the floor
// or not: the sum of a sales call per team.
func everything(t *testing.T, cs *mcp.ClientSession, teams []string, day string) any {
	t.Helper()
	total, any := 0.0, false
	for _, team := range teams {
		a := report(t, cs, "sales", fmt.Sprintf(`{"who":{"team":%q},"period":{"day":%q},"metrics":["board_sales"]}`, team, day))
		if v, ok := a.total(t, "board_sales").(float64); ok {
			total, any = total+v, true
		}
	}
	if !any {
		return nil
	}
	return total
}

func show(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}
