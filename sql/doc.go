// Package sql holds plumbline's SQL files, embedded so that the binary can
// set up a database without the source tree.
//
// Two ordered sets of migrations live here: migrations/ (plumbline's own
// schema, applied to every deployment) and demo/ (the demo floor's reporting
// relations, applied only by `plumbline demo` and the tests). File names
// start with a four-digit version; a file is applied once and must not
// change after that.
//
// Beside them, the privileges, which are re-applied whole whenever plumbline
// sets a database up (package internal/grants renders and applies them):
// roles/roles.sql creates the roles and the login (once per cluster),
// roles/database.sql gives plumbline's roles what they hold in one database
// besides the reader's grants, and takes from every role what
// roles/withheld.sql lists (a query, which the startup guard runs too);
// grants/ holds one file per relation the reader may read, each with a
// header naming the relation, its grain and its review. analyst/ holds the
// same kind of file for the analyst role, the role the analyst's door runs
// statements as. The grant files here are the demo floor's; a deployment
// keeps its own directories of them (--grants, --analyst-grants).
package sql
