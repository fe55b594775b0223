package provision

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/internal/demofloor"
	"plumbline/internal/grants"
	"plumbline/internal/members"
	"plumbline/internal/oauth"
	"plumbline/internal/pgcluster"
	"plumbline/reports/ask"
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

// The demo's people whose tokens it hands out: the lead of demoLeadTeam,
// the team the README's worked example asks about, and a floor manager who
// is no agent (the floor director who sets the demo floor's targets).
const (
	demoLeadTeam = "falcons"
	// DemoSetBy is who set the demo's rows of reach.
	DemoSetBy = "demo floor"
)

// DemoFloorManager is the demo's floor manager, a member who is no agent.
var DemoFloorManager = oauth.Member{PersonID: "m001", Email: "dana.whitfield@floor.example", Name: "Dana Whitfield", Status: "active"}

// DemoPeople are the demo's members whose tokens it hands out.
type DemoPeople struct {
	// Lead leads the team Team, and sees only that team.
	Lead oauth.Member
	Team ask.Team
	// FloorManager sees the whole floor.
	FloorManager oauth.Member
}

// DemoMembers puts the demo floor's team leads and its floor manager in the
// membership table, standing in for the identity provider, and gives them
// reach as plumbline access grant does (as authRole, set by DemoSetBy, from
// the first day of the floor opts generates): each lead sees the team they
// lead and the floor's totals, and the floor manager the whole floor. A row already in force on
// the floor's day is not added again, so each run adds only what an earlier
// one did not. It returns the lead of the Falcons (else the first lead by
// name) and the floor manager.
func DemoMembers(ctx context.Context, dsn, authRole string, opts demofloor.Options) (DemoPeople, error) {
	var p DemoPeople
	from, today, err := demofloor.Span(opts)
	if err != nil {
		return p, err
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return p, err
	}
	defer pool.Close()
	fm := DemoFloorManager
	if _, err := pool.Exec(ctx, `INSERT INTO plumbline.members (person_id, email, display_name, status)
		SELECT a.agent_key, lower(a.email), a.full_name, 'active'
		FROM analytics.dim_team t JOIN analytics.dim_agent a ON a.agent_key = t.lead_agent_key
		UNION ALL SELECT $1, $2, $3, 'active'
		ON CONFLICT (person_id) DO UPDATE SET email = excluded.email, display_name = excluded.display_name,
			status = 'active', updated_at = now()`, fm.PersonID, fm.Email, fm.Name); err != nil {
		return p, fmt.Errorf("add the demo's members: %w", err)
	}
	p.FloorManager = fm
	rows, err := pool.Query(ctx, `SELECT m.person_id, m.email, m.display_name, m.status, t.team_key, t.team_name
		FROM plumbline.members m JOIN analytics.dim_team t ON t.lead_agent_key = m.person_id
		ORDER BY t.team_key = $1 DESC, m.display_name, t.team_key`, demoLeadTeam)
	if err != nil {
		return p, fmt.Errorf("find the demo's team leads: %w", err)
	}
	type lead struct {
		oauth.Member
		ask.Team
	}
	leads, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lead, error) {
		var l lead
		err := r.Scan(&l.PersonID, &l.Email, &l.Member.Name, &l.Status, &l.Key, &l.Team.Name)
		return l, err
	})
	if err != nil {
		return p, fmt.Errorf("find the demo's team leads: %w", err)
	}
	if len(leads) == 0 {
		return p, fmt.Errorf("find the demo's team leads: the floor has none")
	}
	p.Lead, p.Team = leads[0].Member, leads[0].Team
	want := []members.Grant{{Person: fm.PersonID, Sees: ask.SeesFloor, Reason: "the floor manager sees every team"}}
	for _, l := range leads {
		want = append(want, members.Grant{Person: l.PersonID, Sees: ask.SeesTeam, Team: l.Key, Reason: "leads the " + l.Team.Name},
			members.Grant{Person: l.PersonID, Sees: ask.SeesTotals, Reason: "a team lead sees the floor's totals"})
	}
	store := members.NewStore(pool, authRole)
	have, err := store.Grants(ctx, today)
	if err != nil {
		return p, fmt.Errorf("read the demo's reach: %w", err)
	}
	for _, g := range want {
		if slices.ContainsFunc(have, func(h members.Grant) bool {
			return h.SetBy == DemoSetBy && h.Person == g.Person && h.Sees == g.Sees && h.Team == g.Team
		}) {
			continue
		}
		g.From, g.SetBy = from, DemoSetBy
		if _, err := store.AddGrant(ctx, g); err != nil {
			return p, fmt.Errorf("give the demo's members reach: %w", err)
		}
	}
	return p, nil
}
