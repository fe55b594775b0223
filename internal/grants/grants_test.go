package grants_test

import (
	"context"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/grants"
	"plumbline/internal/pgtest"
	"plumbline/internal/query"
	sqlfiles "plumbline/sql"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// denied are the column names that must never be readable by the reader:
// member data. The list is the policy's, written out here rather than taken
// from the code under test.
var denied = regexp.MustCompile(`phone|member|address|birth|dob|transcript|recording|ssn|medicare`)

// The grants policy, for the reader (sql/grants/) and the analyst
// (sql/analyst/) alike: for every relation granted to the role, against a
// real database, no readable column looks like member data, a grain is
// declared and a review is named; and no other SQL file grants to the role.
func TestGrantsPolicy(t *testing.T) {
	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	for _, p := range []struct {
		placeholder, dir, role string
		files                  fs.FS
	}{
		{"reader", "grants/", pgtest.Roles.Reader, sqlfiles.Grants()},
		{"analyst", "analyst/", pgtest.Roles.Analyst, sqlfiles.AnalystGrants()},
	} {
		t.Run(p.placeholder, func(t *testing.T) {
			gs, err := grants.LoadFor(p.files, p.placeholder)
			if err != nil {
				t.Fatal(err)
			}
			files := map[string]*grants.Grant{}
			for _, g := range gs {
				files[g.Relation] = g
				if !slices.Contains([]string{"agent", "team", "alias", "pipeline"}, g.Grain) {
					t.Errorf("%s: grain %q", g.File, g.Grain)
				}
				if strings.TrimSpace(g.ReviewedBy) == "" || g.ReviewedOn.IsZero() || len(g.Why) < 20 {
					t.Errorf("%s: no review (by %q, on %v, why %q)", g.File, g.ReviewedBy, g.ReviewedOn, g.Why)
				}
			}
			if _, ok := files["crm.member_calls"]; ok {
				t.Error("the member data relation has a grant file")
			}
			readable := readableColumns(t, conn, p.role)
			// The reader reads each source through the views that filter
			// it by reach, in the source's place.
			source, seen := map[string]string{}, map[string]string{}
			if p.placeholder == "reader" {
				for _, src := range pgtest.Catalog(t).Sources() {
					for _, v := range query.SeenNames(src) {
						source[v] = src.Relation
					}
					seen[src.Relation] = query.SeenNames(src)[0]
				}
			}
			// With the record of what the rollups were built from: no
			// source's rows.
			delete(readable, query.RollupsRelation)
			for rel, cols := range readable {
				if src, ok := source[rel]; ok {
					rel = src
				}
				if files[rel] == nil {
					t.Errorf("the %s can read %s, which no grant file names", p.placeholder, rel)
				}
				for _, c := range cols {
					if denied.MatchString(c) {
						t.Errorf("the %s can read %s.%s, which looks like member data", p.placeholder, rel, c)
					}
				}
			}
			for rel := range files {
				if v, ok := seen[rel]; ok {
					if len(readable[rel]) > 0 || len(readable[v]) == 0 {
						t.Errorf("the reader reads %s itself, or not through %s", rel, v)
					}
					continue
				}
				if len(readable[rel]) == 0 {
					t.Errorf("%s has a grant file but the %s cannot read it", rel, p.placeholder)
				}
			}
			grantsTo := regexp.MustCompile(`(?is)^\s*grant\b.*\bto\b.*\{\{` + p.placeholder + `\}\}`)
			literal := map[string]string{"reader": grants.DefaultRoles().Reader, "analyst": grants.DefaultRoles().Analyst}[p.placeholder]
			err = fs.WalkDir(sqlfiles.Files(), ".", func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				body, _ := fs.ReadFile(sqlfiles.Files(), path)
				if strings.Contains(withoutComments(string(body)), literal) {
					t.Errorf("%s names the %s role literally; write {{%s}} so the name stays configurable", path, p.placeholder, p.placeholder)
				}
				if strings.HasPrefix(path, p.dir) {
					return nil
				}
				for _, stmt := range strings.Split(withoutComments(string(body)), ";") {
					if grantsTo.MatchString(stmt) {
						t.Errorf("%s grants to the %s; only sql/%s may: %s", path, p.placeholder, p.dir, strings.TrimSpace(stmt))
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
	// Neither of plumbline's logins can read member data.
	for _, login := range []string{pgtest.Roles.App, pgtest.Roles.Agent} {
		if cols := readableColumns(t, conn, login)["crm.member_calls"]; len(cols) > 0 {
			t.Errorf("the login %s can read member data: %v", login, cols)
		}
	}
	// The analyst's email-free grant holds: the agent login reads no email.
	if cols := readableColumns(t, conn, pgtest.Roles.Agent)["analytics.dim_agent"]; slices.Contains(cols, "email") || len(cols) != 4 {
		t.Errorf("the agent login reads %v of analytics.dim_agent, want the four columns without email", cols)
	}
}

// readableColumns lists, per relation outside the system schemas, the
// columns a role can select.
func readableColumns(t *testing.T, conn *pgx.Conn, role string) map[string][]string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `
		SELECT n.nspname || '.' || c.relname, a.attname
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_toast'
		  AND c.relkind IN ('r', 'v', 'm', 'f', 'p')
		  AND has_column_privilege($1, c.oid, a.attnum, 'SELECT')`, role)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	var rel, col string
	_, err = pgx.ForEachRow(rows, []any{&rel, &col}, func() error { out[rel] = append(out[rel], col); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func withoutComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		line, _, _ = strings.Cut(line, "--")
		b.WriteString(line + "\n")
	}
	return b.String()
}

const goodHeader = `-- Relation: metrics.x
-- Grain: agent
-- Reviewed by: Dana Okafor
-- Reviewed on: 2026-11-02
-- Why: figures per agent per day,
--      and nothing else.
`

const goodBody = `
GRANT USAGE ON SCHEMA metrics TO {{reader}};
GRANT SELECT ON metrics.x TO {{reader}};
`

func TestLoad(t *testing.T) {
	gs, err := grants.Load(fstest.MapFS{"metrics.x.sql": {Data: []byte(goodHeader + goodBody)}})
	if err != nil {
		t.Fatal(err)
	}
	g := gs[0]
	if g.Relation != "metrics.x" || g.Grain != "agent" || g.ReviewedBy != "Dana Okafor" ||
		g.ReviewedOn.Format("2006-01-02") != "2026-11-02" || g.Why != "figures per agent per day, and nothing else." || g.Columns != nil {
		t.Errorf("loaded %+v", g)
	}
	cols := goodHeader + "GRANT USAGE ON SCHEMA metrics TO {{reader}};\ngrant select (a, b) on table metrics.x to {{reader}};"
	gs, err = grants.Load(fstest.MapFS{"metrics.x.sql": {Data: []byte(cols)}})
	if err != nil || !slices.Equal(gs[0].Columns, []string{"a", "b"}) {
		t.Errorf("a column grant: %v, %v", gs, err)
	}
}

// Every rule of a grant file is enforced, with a message that says what a
// good file looks like.
func TestLoadRefusesBadFiles(t *testing.T) {
	for _, tc := range []struct{ name, file, body, want string }{
		{"no review", "metrics.x.sql", strings.Replace(goodHeader, "-- Reviewed by: Dana Okafor\n", "", 1) + goodBody, `lacks "reviewed by"`},
		{"no grain", "metrics.x.sql", strings.Replace(goodHeader, "-- Grain: agent\n", "", 1) + goodBody, `lacks "grain"`},
		{"unknown grain", "metrics.x.sql", strings.Replace(goodHeader, "Grain: agent", "Grain: member", 1) + goodBody, "Grain must be one of agent, team, alias"},
		{"bad date", "metrics.x.sql", strings.Replace(goodHeader, "2026-11-02", "last week", 1) + goodBody, "Reviewed on must be a date"},
		{"unknown key", "metrics.x.sql", "-- Owner: me\n" + goodHeader + goodBody, `unknown header key "Owner"`},
		{"misnamed file", "metrics.y.sql", goodHeader + goodBody, "must be named metrics.x.sql"},
		{"another relation", "metrics.x.sql", goodHeader + goodBody + "GRANT SELECT ON crm.member_calls TO {{reader}};", "holds only"},
		{"another role", "metrics.x.sql", goodHeader + goodBody + "GRANT SELECT ON metrics.x TO {{app}};", "holds only"},
		{"a write", "metrics.x.sql", goodHeader + goodBody + "GRANT INSERT ON metrics.x TO {{reader}};", "holds only"},
		{"no usage", "metrics.x.sql", goodHeader + "GRANT SELECT ON metrics.x TO {{reader}};", "holds only"},
		{"not sql", "notes.txt", "hello", "only <schema>.<relation>.sql files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := grants.Load(fstest.MapFS{tc.file: {Data: []byte(tc.body)}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := grants.Load(fstest.MapFS{}); err == nil || !strings.Contains(err.Error(), "no grant files") {
		t.Errorf("an empty directory: %v", err)
	}
}

func TestRolesCheck(t *testing.T) {
	if err := grants.DefaultRoles().Check(); err != nil {
		t.Fatal(err)
	}
	for _, r := range []grants.Roles{
		{Reader: "Reader", Logger: "l", Auth: "a", App: "p"},
		{Reader: "r; DROP TABLE x", Logger: "l", Auth: "a", App: "p"},
		{Reader: "pg_monitor", Logger: "l", Auth: "a", App: "p"},
		{Reader: "same", Logger: "same", Auth: "a", App: "p"},
		{Reader: "r", Logger: "l", Auth: "a", App: ""},
	} {
		if r.Check() == nil {
			t.Errorf("%+v passed the check", r)
		}
	}
}

// Applying again is safe, and a grant file that is gone is revoked: the
// reader holds exactly what the files give it.
func TestApplyReconciles(t *testing.T) {
	db := pgtest.NewDB(t)
	r := db.PrivateRoles(t)
	conn := db.Conn(t)
	ctx := context.Background()
	gs, err := grants.Load(sqlfiles.Grants())
	if err != nil {
		t.Fatal(err)
	}
	if err := grants.CreateRoles(ctx, conn, r); err != nil {
		t.Fatalf("creating existing roles again: %v", err)
	}
	var fewer []*grants.Grant
	for _, g := range gs {
		if g.Relation != "live.sales_board" {
			fewer = append(fewer, g)
		}
	}
	if err := grants.Apply(ctx, conn, r, fewer, pgtest.Catalog(t)); err != nil {
		t.Fatal(err)
	}
	readable := readableColumns(t, conn, r.Reader)
	if len(readable["live.sales_board"]) > 0 || len(readable["plumbline_seen.sales_board"]) > 0 || len(readable) != len(grants.ReaderReads(fewer, pgtest.Catalog(t))) {
		t.Errorf("after removing a grant file the reader reads %v", readable)
	}
	if err := grants.Apply(ctx, conn, r, gs, pgtest.Catalog(t)); err != nil {
		t.Fatal(err)
	}
	if readable, want := readableColumns(t, conn, r.Reader), grants.ReaderReads(gs, pgtest.Catalog(t)); len(readable) != len(want) {
		t.Errorf("after applying every file again the reader reads %d relations, want %d", len(readable), len(want))
	}
	script, err := grants.Script(r, grants.DefaultLimits(), gs, pgtest.Catalog(t))
	if err != nil || !strings.Contains(script, "GRANT SELECT ON live.sales_board TO "+r.Reader+";") ||
		!strings.Contains(script, "ALTER ROLE "+r.Agent+" SET temp_file_limit = '256MB';") || strings.Contains(script, "{{") {
		t.Errorf("the script for a DBA is not rendered: %v\n%s", err, script)
	}
}

// Every relation the demo catalogue reads has a shipped grant file; take
// one away and it alone is ungranted.
func TestUngranted(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	gs, err := grants.LoadDir("")
	if err != nil {
		t.Fatal(err)
	}
	if rels := grants.Ungranted(cat, gs); len(rels) != 0 {
		t.Fatalf("the shipped grants leave %q ungranted", rels)
	}
	rels := cat.Relations()
	if len(rels) == 0 {
		t.Fatal("the demo catalogue reads no relation")
	}
	for _, rel := range rels {
		kept := slices.DeleteFunc(slices.Clone(gs), func(g *grants.Grant) bool { return g.Relation == rel })
		if len(kept) == len(gs) {
			t.Fatalf("no shipped grant names %s", rel)
		}
		if got := grants.Ungranted(cat, kept); !slices.Equal(got, []string{rel}) {
			t.Errorf("without the grant of %s: ungranted %q", rel, got)
		}
	}
}

// The analyst's limits are bounds PostgreSQL takes, written as it writes
// them, and a role's value of one is looser when it allows more, in any of
// PostgreSQL's units, or sets no bound at all.
func TestLimits(t *testing.T) {
	settings, err := grants.DefaultLimits().Settings()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range settings {
		got = append(got, s.Name+"="+s.Value)
	}
	if want := []string{"statement_timeout=10s", "lock_timeout=2s", "idle_in_transaction_session_timeout=10s", "work_mem=16MB",
		"temp_file_limit=256MB"}; !slices.Equal(got, want) {
		t.Errorf("the default limits are %v, want %v", got, want)
	}
	for _, bad := range []func(*grants.Limits){
		func(l *grants.Limits) { l.WorkMem = "lots" }, func(l *grants.Limits) { l.TempFileLimit = "-1" },
		func(l *grants.Limits) { l.LockTimeout = 0 }, func(l *grants.Limits) { l.TempFileLimit = "1'; DROP ROLE x; --" },
	} {
		l := grants.DefaultLimits()
		bad(&l)
		if _, err := l.Settings(); err == nil {
			t.Errorf("%+v passed", l)
		}
	}
	for _, tt := range []struct {
		setting, value string
		looser         bool
	}{
		{"statement_timeout", "10000", false}, {"statement_timeout", "9s", false}, {"statement_timeout", "11s", true},
		{"statement_timeout", "1min", true}, {"statement_timeout", "0", true}, {"work_mem", "16384", false},
		{"work_mem", "16MB", false}, {"work_mem", "1GB", true}, {"temp_file_limit", "-1", true}, {"temp_file_limit", "262144kB", false},
	} {
		s := settings[slices.IndexFunc(settings, func(s grants.Setting) bool { return s.Name == tt.setting })]
		if looser, err := s.Looser(tt.value); err != nil || looser != tt.looser {
			t.Errorf("%s = %s against %s: looser %v (%v), want %v", tt.setting, tt.value, s.Value, looser, err, tt.looser)
		}
	}
}
