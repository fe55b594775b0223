package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"plumbline/catalog"
	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/internal/query"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// The database enforces reach by itself. With the engine's own check gone
// (an engine with no source of reach lets every caller ask for anything), a
// team lead who may see only the Falcons asks for the Hawks and for the
// floor: the database returns only the rows of agents on the Falcons, so
// the Hawks' figure is what those rows hold (none, unless a Falcon came from
// the Hawks) and the floor's is the Falcons' alone. The expected figures
// are summed here from the raw tables, with the rule written out in Go. A
// person with no row of reach sees what the store's default says; a grant
// and a revoke hold from the next call; the analyst's door cannot read the
// views at all.
func TestTheDatabaseFiltersByReach(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	admin := db.Conn(t)
	if _, err := admin.Exec(ctx, `INSERT INTO plumbline.reach (person_id, sees, team_key, from_day, set_by, reason) VALUES
		('lead', 'team', 'falcons', '2020-01-01', 'test', 'a team lead'),
		('boss', 'floor', NULL, '2020-01-01', 'test', 'the floor manager')`); err != nil {
		t.Fatal(err)
	}
	cat := demo(t)
	// No reach in the engine, and so no answer kept: every caller would
	// share one key.
	blind := func(def string) *reports.Engine {
		st := open(t, db, cat, &pgstore.Options{DefaultReach: def})
		return reports.New(cat, st, &reports.Options{Now: func() time.Time { return db.Now }, Logger: quiet, Cache: reports.NewAnswerCache(0)})
	}
	none := blind(ask.SeesNone)

	// The raw rows of October and every agent's dated teams.
	today := time.Date(db.Now.Year(), db.Now.Month(), db.Now.Day(), 0, 0, 0, 0, time.UTC)
	type stint struct {
		team string
		from time.Time
	}
	history := map[string][]stint{}
	rows, _ := admin.Query(ctx, "SELECT agent_key, team_key, effective_from FROM analytics.agent_team_history ORDER BY effective_from")
	var agent, team string
	var from time.Time
	if _, err := pgx.ForEachRow(rows, []any{&agent, &team, &from}, func() error {
		history[agent] = append(history[agent], stint{team, from})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	teamOn := func(agent string, day time.Time) string {
		out := ""
		for _, s := range history[agent] {
			if !s.from.After(day) {
				out = s.team
			}
		}
		return out
	}
	seenByLead := func(agent string, day time.Time) bool {
		return teamOn(agent, day) == "falcons" || teamOn(agent, today) == "falcons"
	}
	var all, seen int64 // the Hawks' submitted applications in October
	var day time.Time
	var submitted int64
	rows, _ = admin.Query(ctx, "SELECT agent_key, day, submitted FROM metrics.agent_sales_daily WHERE day BETWEEN '2026-10-01' AND '2026-10-31'")
	if _, err := pgx.ForEachRow(rows, []any{&agent, &day, &submitted}, func() error {
		if teamOn(agent, day) == "hawks" {
			all += submitted
			if seenByLead(agent, day) {
				seen += submitted
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	october := `"period":{"start":"2026-10-01","end":"2026-10-31"},"metrics":["submitted_sales"]`
	sales := func(e *reports.Engine, person, who string) float64 {
		t.Helper()
		a := e.Call(ctx, ask.Caller{Person: person}, "sales", json.RawMessage(`{"who":`+who+`,`+october+`}`))
		if a.Refusal != nil {
			t.Fatalf("%s asking about %s: refused: %s", person, who, a.Refusal.Sentence())
		}
		return figure(t, a, "submitted_sales")
	}
	hawks, falcons, floor := `{"team":"hawks"}`, `{"team":"falcons"}`, `{"floor":true}`
	if got := sales(none, "boss", hawks); got != float64(all) {
		t.Fatalf("the floor manager's Hawks: %v, want %d from the raw rows", got, all)
	}
	t.Logf("the Hawks' October: %d submitted, %d of them by agents the Falcons' lead may see", all, seen)
	if got := sales(none, "lead", hawks); got != float64(seen) || seen == all {
		t.Errorf("the Falcons' lead asking for the Hawks got %v from the database, want %d (of the Hawks' %d)", got, seen, all)
	}
	if lead, boss := sales(none, "lead", falcons), sales(none, "boss", falcons); lead != boss || lead == 0 {
		t.Errorf("the lead's own team: %v, the floor manager's %v", lead, boss)
	}
	if lead, boss := sales(none, "lead", floor), sales(none, "boss", floor); lead >= boss {
		t.Errorf("the lead's floor (%v) is not less than the floor manager's (%v)", lead, boss)
	}
	// No row of reach: the store's default, floor or none.
	if got := sales(none, "newcomer", floor); got != 0 {
		t.Errorf("with no row and the default none, the floor's figure is %v, want 0", got)
	}
	if got, want := sales(blind(ask.SeesFloor), "newcomer", floor), sales(none, "boss", floor); got != want {
		t.Errorf("with no row and the default floor, the floor's figure is %v, want %v", got, want)
	}

	// The database keeps what a caller may see between transactions, but a
	// change of reach holds from the next one: a grant of the Hawks, then
	// its revoke.
	if _, err := admin.Exec(ctx, `INSERT INTO plumbline.reach (person_id, sees, team_key, from_day, set_by, reason)
		VALUES ('lead', 'team', 'hawks', '2020-01-01', 'test', 'covering the Hawks')`); err != nil {
		t.Fatal(err)
	}
	if got := sales(none, "lead", hawks); got != float64(all) {
		t.Errorf("granted the Hawks, the lead got %v of them from the database, want all %d", got, all)
	}
	if _, err := admin.Exec(ctx, `UPDATE plumbline.reach SET to_day = from_day - 1, ended_by = 'test', ended_at = now()
		WHERE team_key = 'hawks'`); err != nil {
		t.Fatal(err)
	}
	if got := sales(none, "lead", hawks); got != float64(seen) {
		t.Errorf("the Hawks revoked, the lead got %v of them from the database, want %d", got, seen)
	}

	// The analyst's door reads no view of plumbline's, whatever it sets.
	tx, end := db.AsAnalyst(t, "5s")
	defer end()
	_, err := tx.Exec(ctx, "SELECT set_config('plumbline.caller', 'boss', true); SELECT count(*) FROM plumbline_seen.agent_sales_daily")
	if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Errorf("the analyst read a view that filters by reach: %v", err)
	}
}

// figure returns an answer's one value of a column, null as zero.
func figure(t *testing.T, a *reports.Answer, column string) float64 {
	t.Helper()
	b, _ := json.Marshal(a.Body)
	var body struct {
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}
	if err := json.Unmarshal(b, &body); err != nil || len(body.Rows) != 1 {
		t.Fatalf("not one row: %v %s", err, b)
	}
	for i, c := range body.Columns {
		if c == column {
			v, _ := body.Rows[0][i].(float64)
			return v
		}
	}
	t.Fatalf("no column %s: %s", column, b)
	return 0
}

// The floor's totals are the database's to give too: as the reader, a
// person who may see them reads, through the totals view, the rows of the
// floor's teams each day (counted here with plain SQL over the raw tables)
// and no agent key among them; a team lead without them reads none; and
// no agent key of the view joins the roster, so no team's or agent's
// figure can be summed from it.
func TestTheFloorsTotalsSayNoOne(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	admin := db.Conn(t)
	if _, err := admin.Exec(ctx, `INSERT INTO plumbline.reach (person_id, sees, team_key, from_day, set_by, reason) VALUES
		('director', 'totals', NULL, '2020-01-01', 'test', 'the floor''s totals'),
		('lead', 'team', 'falcons', '2020-01-01', 'test', 'a team lead')`); err != nil {
		t.Fatal(err)
	}
	var want struct{ rows, submitted int64 }
	if err := admin.QueryRow(ctx, `SELECT count(*), sum(submitted) FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-10-01' AND '2026-10-31' AND `+pgtest.OnFloor).Scan(&want.rows, &want.submitted); err != nil {
		t.Fatal(err)
	}
	read := func(person string) (rows, submitted, named int64) {
		t.Helper()
		tx, err := admin.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SELECT set_config($1, $2, true), set_config($3, '2026-11-18', true), set_config($4, 'none', true)",
			query.CallerSetting, person, query.DaySetting, query.DefaultReachSetting); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+pgtest.Roles.Reader); err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(submitted), 0),
				count(*) FILTER (WHERE agent_key IN (SELECT agent_key FROM analytics.dim_agent)) FROM `+query.Totals(sales(t))+`
			WHERE day BETWEEN '2026-10-01' AND '2026-10-31'`).Scan(&rows, &submitted, &named); err != nil {
			t.Fatal(err)
		}
		return rows, submitted, named
	}
	rows, submitted, named := read("director")
	if rows != want.rows || submitted != want.submitted || named != 0 {
		t.Errorf("the totals in October: %d rows, %d submitted, %d agent keys of the roster; want %d rows and %d from the raw tables, and none",
			rows, submitted, named, want.rows, want.submitted)
	}
	if rows, _, _ := read("lead"); rows != 0 {
		t.Errorf("a team lead without the floor's totals read %d rows of them", rows)
	}
}

// sales is the demo catalogue's source of sales.
func sales(t *testing.T) *catalog.Source {
	t.Helper()
	for _, src := range demo(t).Sources() {
		if src.Relation == "metrics.agent_sales_daily" {
			return src
		}
	}
	t.Fatal("the demo catalogue has no metrics.agent_sales_daily")
	return nil
}
