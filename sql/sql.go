// Package sql holds plumbline's SQL files, embedded so that the binary can
// migrate a database without the source tree.
//
// Two ordered sets live here: migrations/ (plumbline's own schema, applied to
// every deployment) and demo/ (the demo floor's reporting relations, applied
// only by `plumbline demo` and the tests). File names start with a four-digit
// version; a file is applied once and must not change after that.
package sql

import (
	"embed"
	"io/fs"
)

//go:embed migrations/*.sql demo/*.sql
var files embed.FS

// Migrations returns plumbline's own migrations.
func Migrations() fs.FS { return sub("migrations") }

// Demo returns the demo floor's schema migrations.
func Demo() fs.FS { return sub("demo") }

func sub(dir string) fs.FS {
	f, err := fs.Sub(files, dir)
	if err != nil {
		panic(err) // the directory is embedded above; this cannot fail
	}
	return f
}
