// Package pgtest gives tests a real PostgreSQL database holding the migrated
// demo floor.
//
// By default each test binary starts its own private cluster (package
// pgcluster) on first use and removes it when the binary exits; set
// PLUMBLINE_TEST_DSN to a superuser connection string to use an existing
// server instead. Either way the floor is generated once into a template
// database, and every test gets its own copy, so tests may write freely.
//
// The template holds plumbline's roles and real grants too (package grants,
// with the default role names), so a test that signs in as plumbline's login
// (DB.AppDSN) proves the grants along with whatever else it tests. Roles
// belong to the whole cluster and test binaries may share one server: a test
// that changes a role's memberships or attributes takes roles of its own
// (DB.PrivateRoles) and leaves the shared ones alone.
//
// NewEmptyDB gives a database with nothing in it instead, for what a company
// sets up from scratch, and DB.LoadExport loads a company's export into it
// as its own tables (testdata/floor2).
//
// There is no skip: a test that needs PostgreSQL and cannot get it fails with
// the reason. Wire the cleanup into the package's TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
package pgtest
