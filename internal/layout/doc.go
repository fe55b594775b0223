// Package layout keeps the module's layout documented: its test fails when
// a package has no doc comment or keeps it outside doc.go, and when the
// README's layout section is not the opening clause of each package's doc
// ("go test ./internal/layout -update" rewrites the section from the docs).
package layout
