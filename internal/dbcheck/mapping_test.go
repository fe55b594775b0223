package dbcheck_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/dbcheck"
	"plumbline/internal/grants"
	"plumbline/internal/pgtest"
	"plumbline/internal/provision"
)

const floor2 = "../../testdata/floor2"

// secondFloor loads the second floor's export into an empty database and
// sets it up with its own views, grants and catalogue.
func secondFloor(t *testing.T) (*pgtest.DB, *catalog.Catalog) {
	t.Helper()
	db := pgtest.NewEmptyDB(t)
	db.LoadExport(t, floor2)
	cat, err := catalog.LoadDir(filepath.Join(floor2, "catalog"))
	if err != nil {
		t.Fatal(err)
	}
	gs, err := grants.LoadDir(filepath.Join(floor2, "grants"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = provision.Database(context.Background(), db.Conn(t), provision.Plan{Roles: pgtest.Roles, Grants: gs, Catalog: cat,
		SQL: os.DirFS(filepath.Join(floor2, "sql"))})
	if err != nil {
		t.Fatal(err)
	}
	return db, cat
}

// The demo floor and the second floor follow every rule the engine reads
// their rows by; each mapping mistake a company can make in its views or
// its data is caught at the line of the catalogue that names the relation,
// with the rule and how to list the rows, and without a row's values.
func TestCheckMapping(t *testing.T) {
	ctx := context.Background()
	demo, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	if errs, err := dbcheck.CheckMapping(ctx, connect(t, pgtest.NewDB(t).AppDSN), demo); err != nil || len(errs) > 0 {
		t.Errorf("the demo floor: %v %v", err, errs)
	}
	db, cat := secondFloor(t)
	if errs, err := dbcheck.CheckMapping(ctx, connect(t, db.AppDSN), cat); err != nil || len(errs) > 0 {
		t.Fatalf("the second floor: %v %v", err, errs)
	}
	yaml, err := os.ReadFile(filepath.Join(floor2, "catalog", "floor.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lineOf := func(key string) int {
		for i, line := range strings.Split(string(yaml), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), key) {
				return i + 1
			}
		}
		t.Fatalf("floor.yaml has no %s", key)
		return 0
	}
	// A to: naming no column is the catalogue's mistake, which CheckCatalog
	// names; the mapping check adds nothing it cannot read.
	typo, err := catalog.Load(overlay(t, "valid_to }", "valid_until }"), "floor2")
	if err != nil {
		t.Fatal(err)
	}
	gs, err := grants.LoadDir(filepath.Join(floor2, "grants"))
	if err != nil {
		t.Fatal(err)
	}
	app := connect(t, db.AppDSN)
	problems, err := dbcheck.CheckCatalog(ctx, app, typo, gs, pgtest.Roles.Reader)
	if err != nil || !slices.Contains(problems, "reporting.team_history.valid_until (roster team_history): the column does not exist") {
		t.Errorf("a to: naming no column: %v %q", err, problems)
	}
	if errs, err := dbcheck.CheckMapping(ctx, app, typo); err != nil || len(errs) > 0 {
		t.Errorf("a to: naming no column, the mapping check: %v %v", err, errs)
	}
	admin := db.Conn(t)
	for _, tc := range []struct {
		name, change, at string
		want             []string
	}{{
		name: "a row per shift",
		// A second shift on a day the agent worked, and a view that
		// forgets to sum shifts per day.
		change: `INSERT INTO telephony.shifts SELECT shift_id + 1000000, employee_id, clock_in + interval '10 hours', clock_out + interval '10 hours', 0, 0
			FROM telephony.shifts WHERE shift_id = 500100;
			CREATE OR REPLACE VIEW reporting.agent_hours_daily AS SELECT employee_id, (clock_in AT TIME ZONE 'America/New_York')::date AS day,
			  extract(epoch FROM clock_out - clock_in) / 3600 AS logged_hours, extract(epoch FROM clock_out - clock_in) / 3600 AS available_hours,
			  talk_seconds / 3600.0 AS talk_hours FROM telephony.shifts`,
		at:   "agent_hours_daily:",
		want: []string{"reporting.agent_hours_daily has 1 agent-day(s) with more than one row, the first on 2025-12-", "the rule is one row per agent and day", "list them with: SELECT"},
	}, {
		name:   "overlapping ranges",
		change: `UPDATE hr.team_assignments SET valid_to = '2026-02-26' WHERE valid_to = '2026-02-24'`,
		at:     "team_history:",
		want:   []string{"reporting.team_history has 1 range(s) of an agent's team that overlaps the next, the first from 2023-06-05", "one team per agent on every day", "the day before it in the view"},
	}, {
		name:   "a gap between ranges",
		change: `UPDATE hr.team_assignments SET valid_to = '2026-02-20' WHERE valid_to = '2026-02-24'`,
		at:     "team_history:",
		want:   []string{"range(s) of an agent's team that leaves a gap before the next"},
	}, {
		name:   "a floor decision ending before it starts",
		change: `UPDATE hr.team_sales_status SET valid_to = '2025-01-01' WHERE valid_to = '2026-02-15'`,
		at:     "floor_history:",
		want:   []string{"reporting.team_floor has 1 range(s) of a team's place on the floor that ends before it starts, the first from 2025-09-01"},
	}, {
		name:   "a watermark going backwards",
		change: `INSERT INTO etl.runs VALUES (9001, 'crm_nightly', '2026-03-10 12:00+00', '2026-03-10 12:30+00', '2026-02-02 05:00+00', 'succeeded')`,
		at:     "loads:",
		want:   []string{`reporting.loads: 1 finished run(s) of "crm_nightly" cover an earlier day than a run that finished before them, the first 2026-02-01`, "never goes backwards"},
	}, {
		name:   "a load under another name",
		change: `UPDATE etl.runs SET job = 'crm_nightly_v2' WHERE job = 'crm_nightly'`,
		at:     "agent_sales_daily:",
		want:   []string{`source agent_sales_daily: no finished run in reporting.loads names it (job = "crm_nightly")`, "write load:"},
	}, {
		name: "a day that is a timestamp",
		change: `DROP VIEW reporting.team_history CASCADE; CREATE VIEW reporting.team_history AS
			SELECT employee_id, team_code, valid_from::timestamptz AS valid_from, valid_to FROM hr.team_assignments`,
		at:   "team_history:",
		want: []string{"reporting.team_history.valid_from (roster team_history) is timestamp with time zone", "make it date"},
	}, {
		name:   "a key an answer would cut",
		change: `UPDATE hr.employees SET employee_id = '20261007' WHERE employee_id = 'E1007'`,
		at:     "agents:",
		want:   []string{"reporting.agents has 1 agent key(s) with a run of 7 or more digits, which every answer cuts to its last 4"},
	}, {
		name:   "a key that is a number",
		change: `DROP VIEW reporting.teams; CREATE VIEW reporting.teams AS SELECT row_number() OVER (ORDER BY team_code) AS team_code, team_name FROM hr.teams`,
		at:     "teams:",
		want:   []string{"reporting.teams.team_code (roster teams) is bigint", "cast it with ::text"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			err := pgx.BeginFunc(ctx, admin, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, tc.change); err != nil {
					t.Fatal(err)
				}
				errs, err := dbcheck.CheckMapping(ctx, tx, cat)
				if err != nil {
					t.Fatal(err)
				}
				got := errs.Error()
				if len(errs) != 1 || filepath.Base(errs[0].File) != "floor.yaml" || errs[0].Line != lineOf(tc.at) {
					t.Errorf("want one problem at floor.yaml:%d, got:\n%s", lineOf(tc.at), got)
				}
				for _, want := range tc.want {
					if !strings.Contains(got, want) {
						t.Errorf("the check does not say %q:\n%s", want, got)
					}
				}
				for _, personal := range []string{"E10", "20261007", "Haddad", "Omar", "@"} {
					if strings.Contains(got, personal) {
						t.Errorf("the check shows %q:\n%s", personal, got)
					}
				}
				return errRollback
			})
			if err != errRollback {
				t.Fatal(err)
			}
		})
	}
}

var errRollback = errorString("roll back")

type errorString string

func (e errorString) Error() string { return string(e) }

// overlay is the second floor's catalogue with one text replaced in
// floor.yaml.
func overlay(t *testing.T, old, new string) fstest.MapFS {
	t.Helper()
	dir := filepath.Join(floor2, "catalog")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := fstest.MapFS{}
	for _, e := range entries {
		body, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "floor.yaml" {
			if !strings.Contains(string(body), old) {
				t.Fatalf("floor.yaml has no %q", old)
			}
			body = []byte(strings.Replace(string(body), old, new, 1))
		}
		out[e.Name()] = &fstest.MapFile{Data: body}
	}
	return out
}
