package dbcheck_test

import (
	"context"
	"testing"

	"plumbline/internal/dbcheck"
	"plumbline/internal/pgtest"
)

// BenchmarkInspect is the startup guard's cost: one query over the demo
// floor's database as plumbline's login.
func BenchmarkInspect(b *testing.B) {
	db := pgtest.NewDB(b)
	conn := connect(b, db.AppDSN)
	p := policy(b, pgtest.Roles)
	for b.Loop() {
		if _, err := dbcheck.Inspect(context.Background(), conn, p); err != nil {
			b.Fatal(err)
		}
	}
}
