package provision

import (
	"context"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/grants"
	"plumbline/internal/migrate"
	sqlfiles "plumbline/sql"
)

// Plan is what Database does to one database.
type Plan struct {
	// Demo applies the demo floor's schema before plumbline's migrations.
	Demo bool
	// Fill, if set, runs after the migrations and before the roles and
	// grants, on the same connection: the demo loads its floor here.
	Fill func(ctx context.Context, conn *pgx.Conn) error
	// Roles are created where they do not exist yet and given Grants
	// (a grant file removed since the last run is revoked).
	Roles  grants.Roles
	Grants []*grants.Grant
	// Limits are set on the analyst role and the agent login; if zero,
	// grants.DefaultLimits.
	Limits grants.Limits
}

// Database provisions the database conn is connected to, as an
// administrator, and returns the migrations it applied (none when the
// database is already up to date). It is safe to run again.
func Database(ctx context.Context, conn *pgx.Conn, p Plan) (applied []string, err error) {
	sets := []migrate.Set{{Name: "plumbline", Files: sqlfiles.Migrations()}}
	if p.Demo {
		sets = append([]migrate.Set{{Name: "demo", Files: sqlfiles.Demo()}}, sets...)
	}
	if applied, err = migrate.Apply(ctx, conn, sets...); err != nil {
		return applied, err
	}
	if p.Fill != nil {
		if err := p.Fill(ctx, conn); err != nil {
			return applied, err
		}
	}
	if err := grants.CreateRoles(ctx, conn, p.Roles); err != nil {
		return applied, err
	}
	if err := grants.Apply(ctx, conn, p.Roles, p.Grants); err != nil {
		return applied, err
	}
	limits := p.Limits
	if limits == (grants.Limits{}) {
		limits = grants.DefaultLimits()
	}
	return applied, grants.SetLimits(ctx, conn, p.Roles, limits)
}
