// Package dbcheck checks a database against what plumbline expects of it.
//
// Inspect is the startup guard: it asks PostgreSQL what the server's own
// login can reach (table, column, sequence, schema and database privileges,
// role memberships, role attributes, executable security-definer functions)
// and lists everything beyond the policy: relations no grant file names,
// writes anywhere but plumbline's own tables (and there only the columns it
// needs), security-definer functions but plumbline's own, creating objects,
// roles besides the reader, logger and auth, superuser and other powerful
// attributes. The server refuses to start while
// anything is extra; `plumbline guard` prints the same report for a DBA.
//
// CheckCatalog is `plumbline check --db`: what the catalogue reads exists,
// is numeric where summed, is granted, reviewed and readable by the reader.
package dbcheck
