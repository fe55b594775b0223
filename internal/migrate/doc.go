// Package migrate applies plumbline's ordered SQL migrations and records them.
//
// A set is a directory of files named NNNN_name.sql. Each file runs once, in
// version order, inside its own transaction, and is recorded with a checksum
// in plumbline.schema_migrations. A file that changed after it was applied
// stops the run: migrations are history, not configuration. So does a file
// whose version is below one already applied (it would run out of order).
// Concurrent migrators (several replicas starting at once) serialise on an
// advisory lock.
//
// The running is goose's (github.com/pressly/goose/v3): its provider orders
// the files, takes the lock, runs each in a transaction and refuses one out
// of order. What plumbline adds is the ledger goose keeps its versions in,
// plumbline.schema_migrations, which also holds each file's name and
// checksum, and the checksum rule.
package migrate
