// Package dbcheck checks a database against what plumbline expects of it.
//
// Inspect is the startup guard: it asks PostgreSQL what one of plumbline's
// logins can reach (table, column, sequence, schema and database
// privileges, role memberships and attributes, and the access lists of
// functions, the system catalogues, large objects, parameters, foreign-data
// wrappers, foreign servers and tablespaces) and lists everything beyond
// the policy: relations no grant file names, writes anywhere but
// plumbline's own tables (and there only the columns it needs), creating
// objects, roles besides its own, superuser and other powerful attributes,
// security-definer functions but plumbline's own, any function or system
// catalogue granted to the login or its roles but those plumbline uses,
// what PostgreSQL gives PUBLIC none of, what setup takes from PUBLIC
// (grants.Withheld) held again, any privilege on a large object, a
// parameter, a foreign-data wrapper, a foreign server or a tablespace, and
// lo_compat_privileges turned on. Each line names the privilege, the object
// and who holds it, and says how to take it away. The server refuses to
// start while anything is extra; `plumbline guard` prints the same report
// for a DBA.
//
// CheckCatalog is `plumbline check --db`: what the catalogue reads exists,
// is numeric where summed, is granted, reviewed and readable by the reader.
// CheckMapping reads the rows behind it: keys, days and times of the types
// the engine reads, keys that answers do not cut, one row per agent-day and
// per key, history ranges that neither overlap nor leave a gap, watermarks
// that never go backwards, each problem at the catalogue's line that names
// the relation.
package dbcheck
