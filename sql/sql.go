// Package sqlfiles holds plumbline's SQL files, embedded so that the binary can
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
// besides the reader's grants, and grants/ holds one file per relation the
// reader may read, each with a header naming the relation, its grain and its
// review. analyst/ holds the same kind of file for the analyst role, the
// role the analyst's door runs statements as. The grant files here are the
// demo floor's; a deployment keeps its own directories of them (--grants,
// --analyst-grants).
package sqlfiles

import (
	"embed"
	"io/fs"
)

//go:embed migrations/*.sql demo/*.sql roles/*.sql grants/*.sql analyst/*.sql
var files embed.FS

// Files returns every SQL file, by its path under sql/.
func Files() fs.FS { return files }

// Migrations returns plumbline's own migrations.
func Migrations() fs.FS { return sub("migrations") }

// Demo returns the demo floor's schema migrations.
func Demo() fs.FS { return sub("demo") }

// Roles returns the role files: roles.sql and database.sql.
func Roles() fs.FS { return sub("roles") }

// Grants returns the demo floor's grant files, one per relation the reader
// may read.
func Grants() fs.FS { return sub("grants") }

// AnalystGrants returns the demo floor's analyst grant files, one per
// relation the analyst role may read.
func AnalystGrants() fs.FS { return sub("analyst") }

func sub(dir string) fs.FS {
	f, err := fs.Sub(files, dir)
	if err != nil {
		panic(err) // the directory is embedded above; this cannot fail
	}
	return f
}
