package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/demofloor"
	"plumbline/internal/grants"
	"plumbline/internal/pgcluster"
	"plumbline/internal/pgstore"
	"plumbline/internal/provision"
	"plumbline/internal/query"
	sqlfiles "plumbline/sql"
)

// Now is the moment the test floor runs up to: a Wednesday afternoon in New
// York, after the nightly build.
var Now = time.Date(2026, 11, 18, 14, 30, 0, 0, mustZone(demofloor.Zone))

// SQL for expected figures, written independently of plumbline's query
// builder: correlated subqueries over the raw history tables, for a fact row
// aliased s with agent_key and day. TeamOfDay is the team the agent was on
// that day; OnFloor whether that team counted as sales that day.
const (
	TeamOfDay = `(SELECT h.team_key FROM analytics.agent_team_history h
	  WHERE h.agent_key = s.agent_key AND h.effective_from <= s.day ORDER BY h.effective_from DESC LIMIT 1)`
	OnFloor = `(SELECT f.counts_as_sales FROM analytics.team_floor_history f
	  WHERE f.team_key = ` + TeamOfDay + ` AND f.effective_from <= s.day ORDER BY f.effective_from DESC LIMIT 1)`
)

// Seed is the test floor's seed.
const Seed = demofloor.DefaultSeed

// Roles are the role names the template's grants go to; AppDSN signs in as
// Roles.App.
var Roles = grants.DefaultRoles()

// loginPassword is the password of the logins pgtest creates, for servers
// (PLUMBLINE_TEST_DSN) that ask logins for one. It guards nothing but test
// data.
const loginPassword = "pgtest-login"

// DB is one test's private database.
type DB struct {
	// DSN connects as a superuser to this database.
	DSN string
	// AppDSN connects as plumbline's login (Roles.App), which holds the
	// real grants.
	AppDSN string
	// AgentDSN connects as the analyst's door's login (Roles.Agent), a
	// member of the analyst role alone.
	AgentDSN string
	// Name is the database name.
	Name string
	// Now is the moment the floor in it was generated up to.
	Now time.Time
}

// Conn opens a superuser connection to the database, closed at test end.
func (db *DB) Conn(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), db.DSN)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", db.Name, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// AsAnalyst opens a transaction as the analyst's door runs a statement:
// signed in as the agent login, as the analyst role, read-only, with a
// search path of the catalogue alone and the given statement timeout. end
// rolls it back and closes its connection.
func (db *DB) AsAnalyst(t testing.TB, timeout string) (tx pgx.Tx, end func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.AgentDSN)
	if err != nil {
		t.Fatalf("pgtest: connect as the agent login: %v", err)
	}
	if tx, err = conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly}); err == nil {
		_, err = tx.Exec(ctx, fmt.Sprintf(`SET LOCAL statement_timeout = '%s'; SET LOCAL ROLE %s;
			SET LOCAL search_path = pg_catalog, pg_temp; SET LOCAL work_mem = '16MB'`, timeout, Roles.Analyst),
			pgx.QueryExecModeSimpleProtocol)
	}
	if err != nil {
		conn.Close(ctx)
		t.Fatalf("pgtest: begin as the analyst: %v", err)
	}
	return tx, func() { tx.Rollback(ctx); conn.Close(ctx) }
}

// Store opens a report store over the demo catalogue, signed in as
// plumbline's login and running reports as the reader, as a server does.
// It is closed when the test ends.
func (db *DB) Store(t testing.TB) *pgstore.Store {
	t.Helper()
	st, err := pgstore.Open(context.Background(), db.AppDSN, Catalog(t), &pgstore.Options{Role: Roles.Reader})
	if err != nil {
		t.Fatalf("pgtest: open a store: %v", err)
	}
	t.Cleanup(st.Close)
	return st
}

// Catalog returns the demo catalogue, which the test databases serve.
func Catalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return cat
}

// Serve makes the database serve cat, a catalogue of the test's own over
// relations the reader may read: it replaces the views through which the
// reader reads the sources (query.SeenViews) with cat's, and gives the
// reader those.
func (db *DB) Serve(t testing.TB, cat *catalog.Catalog) {
	t.Helper()
	script := query.SeenViews(cat) + query.SeenGrant(cat, Roles.Reader, func(*catalog.Source) bool { return true })
	if _, err := db.Conn(t).Exec(context.Background(), script, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("pgtest: serve a catalogue: %v", err)
	}
}

// LoginDSN returns a connection string for a login pgtest created (such as
// one of PrivateRoles) to this database.
func (db *DB) LoginDSN(login string) string {
	return withLogin(db.DSN, login, loginPassword)
}

// PrivateRoles creates a set of plumbline's roles of this test's own, gives
// them the real grants in this database and drops them when the test ends.
// A test that changes role memberships or attributes uses these, so that
// tests running at the same time in the same cluster are undisturbed.
func (db *DB) PrivateRoles(t testing.TB) grants.Roles {
	t.Helper()
	ctx := context.Background()
	prefix := "pt" + randomHex(4)
	r := grants.Roles{Reader: prefix + "_reader", Logger: prefix + "_logger", Auth: prefix + "_auth", App: prefix + "_app",
		Analyst: prefix + "_analyst", Agent: prefix + "_agent"}
	gs, err := allGrants()
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	conn := db.Conn(t)
	if err := createLogin(ctx, conn, r); err != nil {
		t.Fatalf("pgtest: create private roles: %v", err)
	}
	t.Cleanup(func() {
		// Privileges in this database, then the roles and their memberships.
		names := strings.Join([]string{r.App, r.Agent, r.Reader, r.Logger, r.Auth, r.Analyst}, ", ")
		if _, err := conn.Exec(ctx, fmt.Sprintf("DROP OWNED BY %s; DROP ROLE %s", names, names)); err != nil {
			t.Errorf("pgtest: drop private roles: %v", err)
		}
	})
	if err := grants.Apply(ctx, conn, r, gs, Catalog(t)); err != nil {
		t.Fatalf("pgtest: grant private roles: %v", err)
	}
	return r
}

// createLogin creates the roles, sets the analyst's default limits and
// gives the logins their test password.
func createLogin(ctx context.Context, conn *pgx.Conn, r grants.Roles) error {
	if err := grants.CreateRoles(ctx, conn, r); err != nil {
		return err
	}
	if err := grants.SetLimits(ctx, conn, r, grants.DefaultLimits()); err != nil {
		return err
	}
	_, err := conn.Exec(ctx, fmt.Sprintf("ALTER ROLE %s PASSWORD '%s'; ALTER ROLE %s PASSWORD '%s'", r.App, loginPassword, r.Agent, loginPassword))
	return err
}

// allGrants loads the demo floor's grant files for the reader and the
// analyst.
func allGrants() ([]*grants.Grant, error) {
	gs, err := grants.Load(sqlfiles.Grants())
	if err != nil {
		return nil, err
	}
	as, err := grants.LoadFor(sqlfiles.AnalystGrants(), grants.ToAnalyst)
	return append(gs, as...), err
}

type server struct {
	cluster *pgcluster.Cluster // nil when PLUMBLINE_TEST_DSN is used
	dsn     string             // a superuser connection to the maintenance database
	err     error

	mu        sync.Mutex
	templates map[time.Time]string // by the moment its floor runs up to
}

var (
	once   sync.Once
	shared server
)

// Main runs the tests and then removes the cluster they used, if any.
func Main(m *testing.M) int {
	code := m.Run()
	if shared.cluster != nil {
		if err := shared.cluster.Destroy(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: remove cluster:", err)
		}
	}
	return code
}

// NewDB returns a fresh copy of the demo floor database at Now, dropped when
// the test ends.
func NewDB(t testing.TB) *DB { return NewDBAt(t, Now) }

// NewDBAt returns a fresh copy of the demo floor generated up to now, dropped
// when the test ends. Each moment's floor is generated once per test binary.
func NewDBAt(t testing.TB, now time.Time) *DB {
	t.Helper()
	once.Do(func() { shared.err = shared.setUp() })
	if shared.err != nil {
		t.Fatalf("pgtest: no PostgreSQL for this test: %v", shared.err)
	}
	template, err := shared.template(now)
	if err != nil {
		t.Fatalf("pgtest: build the floor of %s: %v", now.Format(time.RFC3339), err)
	}
	ctx := context.Background()
	name := "t_" + randomHex(6)
	// A new database grants temporary tables to everyone again: the
	// template's setting is not copied.
	if err := shared.exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template),
		fmt.Sprintf("REVOKE TEMPORARY ON DATABASE %s FROM PUBLIC", name)); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		if err := shared.exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	dsn := withDatabase(shared.dsn, name)
	return &DB{DSN: dsn, AppDSN: withLogin(dsn, Roles.App, loginPassword), AgentDSN: withLogin(dsn, Roles.Agent, loginPassword),
		Name: name, Now: now}
}

func (s *server) setUp() error {
	ctx := context.Background()
	dsn := os.Getenv("PLUMBLINE_TEST_DSN")
	if dsn == "" {
		dir, err := os.MkdirTemp("", "plumbline-pgtest-")
		if err != nil {
			return err
		}
		if s.cluster, err = pgcluster.Start(ctx, dir, pgcluster.Options{Ephemeral: true}); err != nil {
			os.RemoveAll(dir)
			return err
		}
		dsn = s.cluster.DSN("postgres")
	}
	if _, err := pgx.ParseConfig(dsn); err != nil {
		return fmt.Errorf("PLUMBLINE_TEST_DSN: %w", err)
	}
	s.dsn = dsn
	s.templates = map[time.Time]string{}
	// Test binaries sharing a server take turns creating the roles.
	conn, err := s.turn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if err := createLogin(ctx, conn, Roles); err != nil {
		return fmt.Errorf("create plumbline's roles: %w", err)
	}
	return nil
}

// turn connects to the server and waits for its turn on the advisory lock
// that test binaries sharing the server take turns on; the lock is the
// connection's until it closes.
func (s *server) turn(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, s.dsn)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtext('plumbline.pgtest'))"); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// template returns the template database of the floor generated up to now,
// building it on first use.
func (s *server) template(now time.Time) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name, ok := s.templates[now]; ok {
		return name, nil
	}
	floor, err := demofloor.Generate(demofloor.Options{Seed: Seed, Now: now})
	if err != nil {
		return "", err
	}
	name := "plumbline_tpl_" + fingerprint(floor)
	if err := s.ensureTemplate(context.Background(), name, floor); err != nil {
		return "", err
	}
	s.templates[now] = name
	return name, nil
}

// ensureTemplate builds a template database unless a previous run against
// the same server already built it from the same inputs. Test binaries
// running in parallel against one server take turns on an advisory lock.
func (s *server) ensureTemplate(ctx context.Context, template string, floor *demofloor.Floor) error {
	conn, err := s.turn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", template).Scan(&exists); err != nil || exists {
		return err
	}
	building := template + "_build"
	if _, err := conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", building)); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return err
	}
	if err := s.fill(ctx, building, floor); err != nil {
		return fmt.Errorf("build test template: %w", err)
	}
	_, err = conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, template))
	return err
}

func (s *server) fill(ctx context.Context, database string, floor *demofloor.Floor) error {
	conn, err := pgx.Connect(ctx, withDatabase(s.dsn, database))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	gs, err := allGrants()
	if err != nil {
		return err
	}
	_, err = provision.Database(ctx, conn, provision.Plan{Demo: true, Roles: Roles, Grants: gs,
		Fill: func(ctx context.Context, conn *pgx.Conn) error { return demofloor.Load(ctx, conn, floor) }})
	return err
}

// exec runs statements one by one on one connection to the maintenance
// database.
func (s *server) exec(ctx context.Context, stmts ...string) error {
	conn, err := pgx.Connect(ctx, s.dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, stmt := range stmts {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// fingerprint names the template after everything that shapes it, so that a
// changed migration or generator never reuses a stale template on a shared
// server.
func fingerprint(floor *demofloor.Floor) string {
	h := sha256.New()
	fs.WalkDir(sqlfiles.Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(sqlfiles.Files(), path)
			h.Write([]byte(path))
			h.Write(b)
		}
		return nil
	})
	fmt.Fprint(h, Roles)
	// What setup runs beyond the files: the views and the grants.
	if gs, err := allGrants(); err == nil {
		if cat, err := catalog.Demo(); err == nil {
			script, _ := grants.Script(Roles, grants.DefaultLimits(), gs, cat)
			h.Write([]byte(script))
		}
	}
	h.Write([]byte(floor.Digest()))
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// withLogin makes a connection string, in URL or keyword form, sign in as
// another login.
func withLogin(dsn, login, password string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.User = url.UserPassword(login, password)
		return u.String()
	}
	return fmt.Sprintf("%s user=%s password=%s", dsn, login, password)
}

// withDatabase points a connection string, in URL or keyword form, at
// another database.
func withDatabase(dsn, database string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + database
		return u.String()
	}
	return dsn + " dbname=" + database
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}
