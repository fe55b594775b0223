package provision

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/demofloor"
	"plumbline/internal/grants"
	"plumbline/internal/oauth"
	"plumbline/internal/pgcluster"
)

// DemoDatabase is the demo floor's database on its private cluster.
const DemoDatabase = "plumbline"

// Demo creates the demo database on a private cluster if it is not there,
// migrates it, loads a fresh floor generated with opts, creates the roles,
// sets the analyst's limits and applies the grants (Database), and says
// what it did on out.
func Demo(ctx context.Context, cluster *pgcluster.Cluster, opts demofloor.Options, roles grants.Roles, limits grants.Limits, gs []*grants.Grant,
	out io.Writer) error {
	admin, err := pgx.Connect(ctx, cluster.DSN("postgres"))
	if err != nil {
		return err
	}
	var exists bool
	err = admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", DemoDatabase).Scan(&exists)
	if err == nil && !exists {
		_, err = admin.Exec(ctx, "CREATE DATABASE "+DemoDatabase)
	}
	admin.Close(ctx)
	if err != nil {
		return fmt.Errorf("create the demo database: %w", err)
	}
	conn, err := pgx.Connect(ctx, cluster.DSN(DemoDatabase))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var floor *demofloor.Floor
	var took time.Duration
	// The floor is generated and loaded once the schema is migrated, and
	// before the grants.
	fill := func(ctx context.Context, conn *pgx.Conn) (err error) {
		start := time.Now()
		if floor, err = demofloor.Generate(opts); err != nil {
			return err
		}
		err = demofloor.Load(ctx, conn, floor)
		took = time.Since(start)
		return err
	}
	applied, err := Database(ctx, conn, Plan{Demo: true, Roles: roles, Grants: gs, Limits: limits, Fill: fill})
	if len(applied) > 0 {
		fmt.Fprintf(out, "Applied %d migrations.\n", len(applied))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Generated the demo floor up to %s: %d teams, %d agents, %d agent-days of sales, %d board entries (%.1fs).\n",
		opts.Now.In(demoZone()).Format("Mon 2 Jan 2006 15:04 MST"), len(floor.Teams), len(floor.Agents), len(floor.Sales), len(floor.Board),
		took.Seconds())
	return nil
}

// demoZone is the demo floor's time zone, or UTC where the zone database
// lacks it.
func demoZone() *time.Location {
	z, err := time.LoadLocation(demofloor.Zone)
	if err != nil {
		return time.UTC
	}
	return z
}

// DemoMembers puts the demo floor's team leads in the membership table,
// standing in for the identity provider, and returns the first of them by name.
func DemoMembers(ctx context.Context, dsn string) (oauth.Member, error) {
	var m oauth.Member
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return m, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO plumbline.members (person_id, email, display_name, status)
		SELECT a.agent_key, lower(a.email), a.full_name, 'active'
		FROM analytics.dim_team t JOIN analytics.dim_agent a ON a.agent_key = t.lead_agent_key
		ON CONFLICT (person_id) DO UPDATE SET email = excluded.email, display_name = excluded.display_name,
			status = 'active', updated_at = now()`); err != nil {
		return m, fmt.Errorf("add the demo's members: %w", err)
	}
	err = conn.QueryRow(ctx, `SELECT m.person_id, m.email, m.display_name, m.status FROM plumbline.members m
		JOIN analytics.dim_team t ON t.lead_agent_key = m.person_id ORDER BY m.display_name LIMIT 1`).Scan(&m.PersonID, &m.Email, &m.Name, &m.Status)
	if err != nil {
		return m, fmt.Errorf("find the demo's manager: %w", err)
	}
	return m, nil
}
