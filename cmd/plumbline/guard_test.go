package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/grants"
	"plumbline/internal/oauth"
	"plumbline/internal/pgtest"
	sqlfiles "plumbline/sql"
)

// roleArgs are the flags naming a test's private roles.
func roleArgs(r grants.Roles) []string {
	return []string{"--reader-role", r.Reader, "--logger-role", r.Logger, "--auth-role", r.Auth, "--analyst-role", r.Analyst}
}

// The startup guard covers the analyst's door: an extra grant to the
// analyst role, an extra role for its login, or a limit of either that is
// missing or looser than configured (a limit may be set for one database
// only, which holds there), stops the server and makes plumbline guard
// --analyst-db exit 1, naming it; with the reviewed grants and setup's
// limits both pass. What every role gets (a grant to PUBLIC, a database's
// setting) the guard names for both logins, and the server refuses at its
// own login's.
func TestServeRefusesAnalystOverGrants(t *testing.T) {
	for _, tc := range []struct{ name, grant, want string }{
		{"member data", "GRANT USAGE ON SCHEMA crm TO {analyst}; GRANT SELECT ON crm.member_calls TO {analyst}",
			"SELECT on relation crm.member_calls, which no grant file names"},
		{"the request log", "GRANT SELECT ON plumbline.request_log TO {analyst}", "SELECT on relation plumbline.request_log"},
		{"a write", "GRANT INSERT ON metrics.agent_sales_daily TO {analyst}", "INSERT on relation metrics.agent_sales_daily"},
		{"the reader's role", "GRANT {reader} TO {agent}", "membership in role {reader}"},
		{"reading the server's files", "GRANT EXECUTE ON FUNCTION pg_catalog.pg_read_file(text) TO {analyst}",
			"EXECUTE on function pg_catalog.pg_read_file(text)"},
		{"listing the server's directories", "GRANT EXECUTE ON FUNCTION pg_catalog.pg_ls_dir(text) TO {analyst}",
			"EXECUTE on function pg_catalog.pg_ls_dir(text)"},
		{"importing a file", "GRANT EXECUTE ON FUNCTION pg_catalog.lo_import(text) TO {analyst}", "EXECUTE on function pg_catalog.lo_import(text)"},
		{"a large object", "SELECT lo_from_bytea(4242, 'kept aside'); GRANT SELECT ON LARGE OBJECT 4242 TO {analyst}",
			"SELECT on large object 4242"},
		{"large objects unchecked", "ALTER DATABASE {db} SET lo_compat_privileges = on", "lo_compat_privileges is on"},
		{"SET on a parameter", "GRANT SET ON PARAMETER log_statement TO {analyst}", "SET on parameter log_statement"},
		{"a foreign-data wrapper", "CREATE FOREIGN DATA WRAPPER plumbline_fdw; GRANT USAGE ON FOREIGN DATA WRAPPER plumbline_fdw TO {analyst}",
			"USAGE on foreign-data wrapper plumbline_fdw"},
		{"a foreign server", `CREATE FOREIGN DATA WRAPPER plumbline_fdw; CREATE SERVER plumbline_crm FOREIGN DATA WRAPPER plumbline_fdw;
			GRANT USAGE ON FOREIGN SERVER plumbline_crm TO {analyst}`, "USAGE on foreign server plumbline_crm"},
		{"a tablespace", "GRANT CREATE ON TABLESPACE pg_default TO {analyst}", "CREATE on tablespace pg_default"},
		{"a system catalogue", "GRANT SELECT ON pg_catalog.pg_statistic TO {analyst}", "SELECT on relation pg_catalog.pg_statistic"},
		{"other sessions again, through PUBLIC", "GRANT SELECT ON pg_catalog.pg_stat_activity TO PUBLIC",
			"SELECT on relation pg_catalog.pg_stat_activity"},
		{"tables' sizes again, through PUBLIC", "GRANT SELECT ON pg_catalog.pg_class TO PUBLIC",
			"SELECT (relallvisible, relpages, reltuples) on relation pg_catalog.pg_class"},
		{"advisory locks again, through PUBLIC", "GRANT EXECUTE ON FUNCTION pg_catalog.pg_advisory_lock(bigint) TO PUBLIC",
			"EXECUTE on function pg_catalog.pg_advisory_lock(bigint)"},
		{"the server's files, through PUBLIC", "GRANT EXECUTE ON FUNCTION pg_catalog.pg_read_file(text) TO PUBLIC",
			"EXECUTE on function pg_catalog.pg_read_file(text)"},
		{"a limit missing", "ALTER ROLE {agent} RESET temp_file_limit", "no temp_file_limit of its own on login {agent}"},
		{"a limit looser", "ALTER ROLE {analyst} SET statement_timeout = '1h'", "statement_timeout = 1h on role {analyst}, looser than the 10s"},
		{"a limit looser here", "ALTER ROLE {agent} IN DATABASE {db} SET work_mem = '1GB'", "work_mem = 1GB on login {agent}, looser than the 16MB"},
		{"no limit at all", "ALTER ROLE {agent} SET lock_timeout = 0", "lock_timeout = 0 on login {agent}, looser than the 2s"},
		{"none", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := pgtest.NewDB(t)
			r := db.PrivateRoles(t)
			names := strings.NewReplacer("{reader}", r.Reader, "{analyst}", r.Analyst, "{agent}", r.Agent, "{db}", db.Name)
			if tc.grant != "" {
				if _, err := db.Conn(t).Exec(context.Background(), names.Replace(tc.grant)); err != nil {
					t.Fatal(err)
				}
			}
			want := names.Replace(tc.want)
			args := append([]string{"--db", db.LoginDSN(r.App), "--analyst-db", db.LoginDSN(r.Agent)}, roleArgs(r)...)
			code, out, _ := runCLI(t, append([]string{"guard"}, args...)...)
			if tc.want == "" {
				if code != 0 || strings.Count(out, "nothing extra") != 2 || !strings.Contains(out, "login "+r.Agent) {
					t.Errorf("guard with the reviewed grants: exit %d\n%s", code, out)
				}
				return
			}
			logins, refusing := 1, "the analyst's door's login "+r.Agent
			if strings.Contains(tc.grant, " TO PUBLIC") || strings.HasPrefix(tc.grant, "ALTER DATABASE") {
				logins, refusing = 2, "the database login "+r.App
			}
			if code != 1 || strings.Count(out, "\n  "+want) != logins {
				t.Errorf("guard: exit %d, want 1 naming %q for %d login(s):\n%s", code, want, logins, out)
			}
			code, errOut := serveOnce(t, args...)
			if code != 1 || !strings.Contains(errOut, refusing) || !strings.Contains(errOut, "\n  "+want) {
				t.Errorf("serve: exit %d, want 1 naming %q:\n%s", code, want, errOut)
			}
		})
	}
}

// serveOnce runs plumbline serve with args until it exits, or until it
// serves, as it should not when the startup guard ought to refuse it: then
// it is stopped, and the exit code is that of a server stopped (0).
func serveOnce(t *testing.T, args ...string) (code int, stderr string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, errw syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runWith(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "info"}, args...), &stdout, &errw)
	}()
	deadline := time.After(90 * time.Second)
	for {
		select {
		case code := <-done:
			return code, errw.String()
		case <-deadline:
			t.Fatalf("serve neither refused to start nor served:\n%s", errw.String())
		case <-time.After(50 * time.Millisecond):
			if strings.Contains(errw.String(), `"url":"`) {
				cancel()
				return <-done, errw.String()
			}
		}
	}
}

// Each kind of over-grant makes the server refuse to start, naming what is
// extra, and `plumbline guard` print it and exit 1; with the correct grants
// both pass and the server answers.
func TestServeRefusesOverGrants(t *testing.T) {
	for _, tc := range []struct{ name, grant, want string }{
		{"an extra SELECT", "GRANT USAGE ON SCHEMA crm TO {reader}; GRANT SELECT ON crm.member_calls TO {reader}",
			"SELECT on relation crm.member_calls, which no grant file names"},
		{"an INSERT elsewhere", "GRANT INSERT ON metrics.agent_sales_daily TO {app}", "INSERT on relation metrics.agent_sales_daily"},
		{"rewriting who in the log", "GRANT UPDATE (person) ON plumbline.request_log TO {logger}",
			"UPDATE (person) on relation plumbline.request_log"},
		{"deleting from the log", "GRANT DELETE ON plumbline.request_log TO {logger}", "DELETE on relation plumbline.request_log"},
		{"CREATE on a schema", "GRANT CREATE ON SCHEMA analytics TO {app}", "CREATE on schema analytics"},
		{"CREATE on the database", "GRANT CREATE ON DATABASE {db} TO {app}", "CREATE on database {db}"},
		{"temporary tables", "GRANT TEMPORARY ON DATABASE {db} TO PUBLIC", "TEMPORARY on database {db}"},
		{"an extra role membership", "GRANT pg_monitor TO {app}", "membership in role pg_monitor"},
		{"a security-definer function", "CREATE FUNCTION public.as_owner() RETURNS text LANGUAGE sql SECURITY DEFINER AS 'SELECT current_user::text'",
			"EXECUTE on security-definer function public.as_owner()"},
		{"superuser", "ALTER ROLE {app} SUPERUSER", "SUPERUSER on role {app}"},
		{"createrole", "ALTER ROLE {app} CREATEROLE", "CREATEROLE on role {app}"},
		{"createdb", "ALTER ROLE {app} CREATEDB", "CREATEDB on role {app}"},
		{"bypassrls on a role it can become", "ALTER ROLE {reader} BYPASSRLS", "BYPASSRLS on role {reader}"},
		{"a built-in function", "GRANT EXECUTE ON FUNCTION pg_catalog.pg_read_file(text) TO {logger}",
			"EXECUTE on function pg_catalog.pg_read_file(text)"},
		{"ALTER SYSTEM on a parameter", "GRANT ALTER SYSTEM ON PARAMETER work_mem TO {app}", "ALTER SYSTEM on parameter work_mem"},
		{"notifications again, through PUBLIC", "GRANT EXECUTE ON FUNCTION pg_catalog.pg_notify(text, text) TO PUBLIC",
			"EXECUTE on function pg_catalog.pg_notify(text, text)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := pgtest.NewDB(t)
			r := db.PrivateRoles(t)
			names := strings.NewReplacer("{reader}", r.Reader, "{logger}", r.Logger, "{app}", r.App, "{db}", db.Name)
			if _, err := db.Conn(t).Exec(context.Background(), names.Replace(tc.grant)); err != nil {
				t.Fatal(err)
			}
			want := names.Replace(tc.want)
			code, out, _ := runCLI(t, append([]string{"guard", "--db", db.LoginDSN(r.App)}, roleArgs(r)...)...)
			if code != 1 || !strings.Contains(out, "\n  "+want) {
				t.Errorf("guard: exit %d, want 1 naming %q:\n%s", code, want, out)
			}
			code, errOut := serveOnce(t, append([]string{"--db", db.LoginDSN(r.App)}, roleArgs(r)...)...)
			if code != 1 || !strings.Contains(errOut, "will not start") || !strings.Contains(errOut, "\n  "+want) {
				t.Errorf("serve: exit %d, want 1 naming %q:\n%s", code, want, errOut)
			}
		})
	}
	t.Run("the correct grants", func(t *testing.T) {
		t.Parallel()
		db := pgtest.NewDB(t)
		r := db.PrivateRoles(t)
		code, out, _ := runCLI(t, append([]string{"guard", "--db", db.LoginDSN(r.App)}, roleArgs(r)...)...)
		if code != 0 || !strings.Contains(out, "nothing extra") {
			t.Errorf("guard: exit %d\n%s", code, out)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var stdout, stderr syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- runWith(ctx, append([]string{"serve", "--db", db.LoginDSN(r.App), "--addr", "127.0.0.1:0"}, roleArgs(r)...), &stdout, &stderr)
		}()
		url := waitFor(t, &stderr, regexp.MustCompile(`"url":"([^"]+)"`), done)
		if !strings.Contains(stderr.String(), "startup guard passed") {
			t.Errorf("the server does not say the guard passed:\n%s", stderr.String())
		}
		// A token, issued through the login as the auth role.
		code, token, errOut := runCLI(t, "token", "create", "--service", "guard-test", "--db", db.LoginDSN(r.App),
			"--auth-role", r.Auth, "--public-url", strings.TrimSuffix(url, "/mcp"))
		if code != 0 {
			t.Fatalf("token create as the login: exit %d\n%s", code, errOut)
		}
		client := &http.Client{Transport: oauth.BearerTransport(strings.TrimSpace(token), http.DefaultTransport)}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: client}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sales", Arguments: json.RawMessage(`{"who":{"floor":true},"period":{"named":"last_week"}}`)})
		if err != nil || res.IsError {
			t.Fatalf("the server started on the correct grants does not answer: %v %v", res, err)
		}
		cs.Close()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exited %d\n%s", code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not stop")
		}
	})
}

// check --db: the demo catalogue against the demo floor passes; a broken
// database fails with each problem, as text or as annotations.
func TestCheckDatabase(t *testing.T) {
	t.Chdir("../..")
	db := pgtest.NewDB(t)
	code, out, _ := runCLI(t, "check", "--db", db.AppDSN, "catalog/demo")
	if code != 0 || !strings.Contains(out, "catalog/demo: ok") || !strings.Contains(out, fmt.Sprintf("database: ok (%d relations", grantFiles(t))) {
		t.Errorf("check --db on the demo floor: exit %d\n%s", code, out)
	}
	// The analyst's allow-list, each relation with its grain, its review
	// and the columns granted.
	listed := regexp.MustCompile(`analytics\.dim_agent +grain agent +reviewed by Dana Okafor, data platform; Sam Whitfield, compliance on 2026-12-01 +agent_key, full_name, hired_on, left_on\n`)
	if !strings.Contains(out, "analyst allow-list (8 relations") || !listed.MatchString(out) ||
		!regexp.MustCompile(`metrics\.agent_sales_daily +grain agent +reviewed by .* every column\n`).MatchString(out) ||
		!strings.Contains(out, "database: analyst ok") {
		t.Errorf("check --db lists the analyst's allow-list:\n%s", out)
	}
	// PostgreSQL changes no column a view reads: the views that filter by
	// reach go first, and come back over the changed table, as setup makes
	// them.
	if _, err := db.Conn(t).Exec(context.Background(), "DROP SCHEMA plumbline_seen CASCADE; ALTER TABLE metrics.agent_time_daily ALTER COLUMN talk_hours TYPE text"); err != nil {
		t.Fatal(err)
	}
	db.Serve(t, pgtest.Catalog(t))
	code, out, errOut := runCLI(t, "check", "--db", db.AppDSN, "catalog/demo")
	if code != 1 || !strings.Contains(out, "database: metrics.agent_time_daily.talk_hours (source agent_time_daily): is text, not a number") ||
		!strings.Contains(errOut, "1 problem(s) in the database") {
		t.Errorf("check --db with a text column: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "check", "--format", "github", "--db", db.AppDSN, "catalog/demo")
	if code != 1 || !strings.Contains(out, "::error title=plumbline check --db::metrics.agent_time_daily.talk_hours") {
		t.Errorf("check --db --format github: exit %d\n%s", code, out)
	}
	// A summed column that may hold NULL although the catalogue says it
	// cannot: its unknown values would be summed as if they were none.
	if _, err := db.Conn(t).Exec(context.Background(), "ALTER TABLE metrics.agent_quality_daily ALTER COLUMN audits_failed DROP NOT NULL"); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "check", "--db", db.AppDSN, "catalog/demo")
	if code != 1 || !strings.Contains(out, "metrics.agent_quality_daily.audits_failed (source agent_quality_daily): can hold NULL, but the catalogue does not list it") ||
		!strings.Contains(errOut, "2 problem(s) in the database") {
		t.Errorf("check --db with an undeclared nullable column: exit %d\n%s%s", code, out, errOut)
	}
	// Member data granted to the analyst is a problem twice over.
	if _, err := db.Conn(t).Exec(context.Background(), "GRANT USAGE ON SCHEMA crm TO "+pgtest.Roles.Analyst+
		"; GRANT SELECT ON crm.member_calls TO "+pgtest.Roles.Analyst); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "check", "--db", db.AppDSN, "catalog/demo")
	if code != 1 || !strings.Contains(out, "database: crm.member_calls.member_phone: the analyst can read it and its name looks like member data") ||
		!strings.Contains(out, "database: crm.member_calls: the analyst role "+pgtest.Roles.Analyst+" can read it but no analyst grant file names it") {
		t.Errorf("check --db with member data granted to the analyst: exit %d\n%s", code, out)
	}
}

// setup creates the roles and the login and applies the grants; the login
// then passes the guard. --print shows the same SQL with the names filled in.
func TestSetup(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	r := grants.Roles{Reader: "st_reader_" + db.Name, Logger: "st_logger_" + db.Name, Auth: "st_auth_" + db.Name, App: "st_app_" + db.Name,
		Analyst: "st_analyst_" + db.Name, Agent: "st_agent_" + db.Name}
	admin := db.Conn(t)
	t.Cleanup(func() {
		names := strings.Join([]string{r.App, r.Agent, r.Reader, r.Logger, r.Auth, r.Analyst}, ", ")
		if _, err := admin.Exec(ctx, fmt.Sprintf("DROP OWNED BY %s; DROP ROLE %s", names, names)); err != nil {
			t.Errorf("drop the roles setup made: %v", err)
		}
	})
	args := append([]string{"--app-login", r.App, "--agent-login", r.Agent}, roleArgs(r)...)
	for run := 1; run <= 2; run++ {
		code, out, errOut := runCLI(t, append([]string{"setup", "--db", db.DSN}, args...)...)
		if code != 0 || !strings.Contains(out, fmt.Sprintf("The reader may read %d relations", grantFiles(t))) || !strings.Contains(out, "The analyst may read 8 relations") {
			t.Fatalf("setup run %d: exit %d\n%s%s", run, code, out, errOut)
		}
	}
	if _, err := admin.Exec(ctx, "ALTER ROLE "+r.App+" PASSWORD 'pgtest-login'; ALTER ROLE "+r.Agent+" PASSWORD 'pgtest-login'"); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, append([]string{"guard", "--db", db.LoginDSN(r.App), "--analyst-db", db.LoginDSN(r.Agent)}, roleArgs(r)...)...)
	if code != 0 || strings.Contains(out, "missing") || strings.Count(out, "nothing extra") != 2 {
		t.Errorf("the login setup made does not pass the guard: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, append([]string{"setup", "--print"}, args...)...)
	if code != 0 || !strings.Contains(out, "GRANT SELECT ON live.sales_board TO "+r.Reader+";") ||
		!strings.Contains(out, "GRANT SELECT ON live.sales_board TO "+r.Analyst+";") || !strings.Contains(out, "GRANT "+r.Analyst+" TO "+r.Agent+";") ||
		!strings.Contains(out, "CREATE ROLE "+r.App+" LOGIN") || !strings.Contains(out, "ALTER ROLE "+r.Agent+" SET temp_file_limit = '256MB';") ||
		strings.Contains(out, "{{") {
		t.Errorf("setup --print: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "setup", "--reader-role", "Bad-Name"); code != 2 || !strings.Contains(errOut, "lower-case SQL identifier") {
		t.Errorf("a bad role name: exit %d, %s", code, errOut)
	}
}

// The request log's secret comes from the environment without showing up
// in --help, and a short one is refused before anything starts.
func TestLogSecret(t *testing.T) {
	t.Setenv("PLUMBLINE_LOG_SECRET", "zq9SECRETzq9-long-enough")
	if _, out, _ := runCLI(t, "help", "serve"); strings.Contains(out, "zq9SECRETzq9") {
		t.Errorf("--help shows the secret:\n%s", out)
	}
	code, _, errOut := runCLI(t, "serve", "--db", "postgres://nowhere.invalid/x", "--log-secret", "short")
	if code != 2 || !strings.Contains(errOut, "--log-secret must be at least 16 bytes") {
		t.Errorf("a short secret: exit %d, %s", code, errOut)
	}
}

// grantFiles counts the demo floor's grant files: one per relation the
// reader may read.
func grantFiles(t *testing.T) int {
	t.Helper()
	files, err := fs.Glob(sqlfiles.Grants(), "*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no grant files: %v", err)
	}
	return len(files)
}
