// Package pgcluster runs a private PostgreSQL cluster from the machine's own
// PostgreSQL binaries: initdb and pg_ctl into a directory, listening on a free
// loopback port, with no unix socket. The demo and the test suite use it so
// that neither needs a server someone else set up.
//
// PostgreSQL refuses to run as root, so when the process is root the cluster
// runs as the "postgres" system user and its directory is handed to that user.
// The cluster trusts every local connection: it is for development and tests,
// never for real data.
package pgcluster
