// Package pgstore runs report plans against PostgreSQL. It implements
// ask.Store over a pgx connection pool: every report runs in its own
// read-only transaction with a statement timeout, as the reader role, named
// after the person asking, and database errors are turned into the few
// faults the engine names (busy, timeout) or passed on for the engine to
// log; their text never reaches a caller.
package pgstore
