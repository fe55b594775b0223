package sql

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

// Roles returns the role files: roles.sql, database.sql and withheld.sql.
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
