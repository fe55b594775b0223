package demofloor_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/demofloor"
	"plumbline/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestGenerateIsDeterministic(t *testing.T) {
	a, err := demofloor.Generate(demofloor.Options{Now: pgtest.Now})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := demofloor.Generate(demofloor.Options{Now: pgtest.Now})
	if a.Digest() != b.Digest() {
		t.Fatal("two floors generated from the same seed and now differ")
	}
	c, _ := demofloor.Generate(demofloor.Options{Now: pgtest.Now, Seed: 7})
	if a.Digest() == c.Digest() {
		t.Fatal("a different seed generated the same floor")
	}
}

// A settled day's figures must not change when the clock moves on.
// Span names the days of the floor Generate makes, without making it.
func TestSpan(t *testing.T) {
	for _, opts := range []demofloor.Options{{Now: pgtest.Now}, {Now: pgtest.Now.Add(10 * time.Hour), Days: 150}} {
		f, err := demofloor.Generate(opts)
		if err != nil {
			t.Fatal(err)
		}
		start, today, err := demofloor.Span(opts)
		if err != nil || !start.Equal(f.Start) || !today.Equal(f.Today) {
			t.Errorf("Span(%v) = %s, %s (%v); the floor runs %s to %s", opts, start, today, err, f.Start, f.Today)
		}
	}
	if _, _, err := demofloor.Span(demofloor.Options{}); err == nil {
		t.Error("Span takes options without a now")
	}
}

func TestHistoryIsStableAsNowMovesOn(t *testing.T) {
	early, _ := demofloor.Generate(demofloor.Options{Now: pgtest.Now})
	late, _ := demofloor.Generate(demofloor.Options{Now: pgtest.Now.Add(72 * time.Hour)})
	day := early.Today.AddDate(0, 0, -30)
	pick := func(f *demofloor.Floor) map[string]demofloor.SalesRow {
		out := map[string]demofloor.SalesRow{}
		for _, r := range f.Sales {
			if r.Day.Equal(day) {
				out[r.Agent] = r
			}
		}
		return out
	}
	a, b := pick(early), pick(late)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("sales rows on %s: %d then %d", day.Format(time.DateOnly), len(a), len(b))
	}
	for k, r := range a {
		if b[k].Submitted != r.Submitted || b[k].Lost != r.Lost {
			t.Errorf("agent %s on %s changed from %+v to %+v", k, day.Format(time.DateOnly), r, b[k])
		}
	}
}

func TestOptionsAreChecked(t *testing.T) {
	for _, o := range []demofloor.Options{{}, {Now: pgtest.Now, Agents: 3}, {Now: pgtest.Now, Days: 10}} {
		if _, err := demofloor.Generate(o); err == nil {
			t.Errorf("Generate(%+v) accepted bad options", o)
		}
	}
}

// The loaded floor holds every trap the design lists. Each check is plain SQL
// over the raw tables.
func TestLoadedFloorHasEveryTrap(t *testing.T) {
	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	today := time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC)
	checks := []struct {
		what string
		sql  string
		args []any
	}{
		{"5 to 7 teams", "SELECT count(*) BETWEEN 5 AND 7 FROM analytics.dim_team", nil},
		{"70 to 120 agents", "SELECT count(*) BETWEEN 70 AND 120 FROM analytics.dim_agent", nil},
		{"about 400 days of history", "SELECT max(day) - min(day) BETWEEN 390 AND 400 FROM metrics.agent_sales_daily", nil},
		{"transfers inside the last 120 days",
			"SELECT count(*) >= 2 FROM analytics.agent_team_history h WHERE effective_from > $1::date - 120 AND EXISTS (SELECT 1 FROM analytics.agent_team_history o WHERE o.agent_key = h.agent_key AND o.effective_from < h.effective_from)", []any{today}},
		{"a team joins the floor inside 120 days",
			"SELECT EXISTS (SELECT 1 FROM analytics.team_floor_history n JOIN analytics.team_floor_history o USING (team_key) WHERE n.effective_from > $1::date - 120 AND n.counts_as_sales AND NOT o.counts_as_sales AND o.effective_from < n.effective_from)", []any{today}},
		{"a team leaves the floor inside 120 days",
			"SELECT EXISTS (SELECT 1 FROM analytics.team_floor_history n JOIN analytics.team_floor_history o USING (team_key) WHERE n.effective_from > $1::date - 120 AND NOT n.counts_as_sales AND o.counts_as_sales AND o.effective_from < n.effective_from)", []any{today}},
		{"a team never counts",
			"SELECT EXISTS (SELECT team_key FROM analytics.team_floor_history GROUP BY team_key HAVING NOT bool_or(counts_as_sales))", nil},
		{"two names differing in one letter",
			"SELECT count(*) = 2 FROM analytics.dim_agent WHERE full_name IN ('Maria Lopez', 'Maria Lopes')", nil},
		{"one first name on two teams",
			"SELECT count(DISTINCT h.team_key) = 2 FROM analytics.dim_agent a JOIN analytics.agent_team_history h USING (agent_key) WHERE a.full_name LIKE 'Jamal %'", nil},
		{"an accented name", "SELECT EXISTS (SELECT 1 FROM analytics.dim_agent WHERE full_name = 'José Peña')", nil},
		{"an agent who left", "SELECT EXISTS (SELECT 1 FROM analytics.dim_agent WHERE left_on IS NOT NULL)", nil},
		{"a hire in the last month", "SELECT EXISTS (SELECT 1 FROM analytics.dim_agent WHERE hired_on > $1::date - 31)", []any{today}},
		{"NULL hours only on the newest day",
			"SELECT bool_and(day = $1::date - 1) AND count(*) > 0 FROM metrics.agent_time_daily WHERE logged_hours IS NULL", []any{today}},
		{"zero-hour days", "SELECT count(*) > 50 FROM metrics.agent_time_daily WHERE logged_hours = 0", nil},
		{"nightly tables stop at yesterday", "SELECT max(day) = $1::date - 1 FROM metrics.agent_sales_daily", []any{today}},
		{"approvals missing for recent days",
			"SELECT count(*) FILTER (WHERE approved IS NULL) = count(*) FROM metrics.agent_sales_daily WHERE day >= $1::date - 3", []any{today}},
		{"approvals settled for old days",
			"SELECT count(*) FILTER (WHERE approved IS NULL) = 0 FROM metrics.agent_sales_daily WHERE day < $1::date - 14", []any{today}},
		{"approvals partly in for the days between",
			"SELECT count(*) FILTER (WHERE approved IS NULL) BETWEEN 1 AND count(*) - 1 FROM metrics.agent_sales_daily WHERE day = $1::date - 8", []any{today}},
		{"the board runs to now and no further",
			"SELECT max(entered_at) <= $1 AND max(entered_at) > $1::timestamptz - interval '3 hours' FROM live.sales_board", []any{pgtest.Now}},
		{"the board holds history", "SELECT min(entered_at) < $1::timestamptz - interval '300 days' FROM live.sales_board", []any{pgtest.Now}},
		{"member data exists", "SELECT count(*) > 100 FROM crm.member_calls", nil},
	}
	for _, c := range checks {
		var ok bool
		if err := conn.QueryRow(context.Background(), c.sql, c.args...).Scan(&ok); err != nil {
			t.Errorf("%s: %v", c.what, err)
		} else if !ok {
			t.Errorf("the floor lacks %s", c.what)
		}
	}
}

// Before the nightly build (05:00) the nightly tables stop at the day before
// yesterday, and the board still runs to now.
func TestBeforeTheNightlyBuild(t *testing.T) {
	now := time.Date(2026, 11, 18, 3, 10, 0, 0, pgtest.Now.Location())
	f, err := demofloor.Generate(demofloor.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	if !f.LastNightly.Equal(want) {
		t.Fatalf("LastNightly = %s, want %s", f.LastNightly, want)
	}
	for _, r := range f.Sales {
		if r.Day.After(want) {
			t.Fatalf("a sales row for %s exists before its nightly build", r.Day)
		}
	}
	for _, b := range f.Board {
		if b.EnteredAt.After(now) {
			t.Fatalf("a board entry at %s is after now", b.EnteredAt)
		}
	}
}

func BenchmarkGenerateAndLoad(b *testing.B) {
	db := pgtest.NewDB(b)
	conn, err := pgx.Connect(context.Background(), db.DSN)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	for b.Loop() {
		f, err := demofloor.Generate(demofloor.Options{Now: pgtest.Now})
		if err != nil {
			b.Fatal(err)
		}
		if err := demofloor.Load(context.Background(), conn, f); err != nil {
			b.Fatal(err)
		}
	}
}

// A floor with more agents than the name pools have first and last name
// pairs still names every agent, and every email, once.
func TestEveryAgentOfALargeFloorHasANameOfTheirOwn(t *testing.T) {
	f, err := demofloor.Generate(demofloor.Options{Now: pgtest.Now, Agents: 6000, Days: 120})
	if err != nil {
		t.Fatal(err)
	}
	names, emails := map[string]bool{}, map[string]bool{}
	for _, a := range f.Agents {
		if names[a.Name] || emails[a.Email] || strings.Contains(a.Email, "..") {
			t.Fatalf("%q <%s> is not the only one of its name, or its email is malformed", a.Name, a.Email)
		}
		names[a.Name], emails[a.Email] = true, true
	}
	if len(f.Agents) != 6000 {
		t.Errorf("%d agents, want 6000", len(f.Agents))
	}
}
