package provision

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/grants"
	"plumbline/internal/migrate"
	"plumbline/internal/query"
	sqlfiles "plumbline/sql"
)

// OwnSet is the name the ledger records a company's own SQL files under
// (Plan.SQL).
const OwnSet = "own"

// Plan is what Database does to one database.
type Plan struct {
	// Demo applies the demo floor's schema before plumbline's migrations.
	Demo bool
	// SQL, if set, holds the company's own SQL files (NNNN_name.sql: the
	// views that present its data as the catalogue reads it), applied after
	// plumbline's migrations and before the grants, each once, in version
	// order, and recorded like a migration under OwnSet.
	SQL fs.FS
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
	// Catalog is the catalogue the database will serve: every relation it
	// reads must exist and have a grant file to the reader, and the reader
	// reads its sources through views that filter them by reach
	// (query.SeenViews). If nil, the demo's, and the catalogue's
	// relations are not checked.
	Catalog *catalog.Catalog
}

// Database provisions the database conn is connected to, as an
// administrator, builds the catalogue's rollups, and returns the migrations it applied (none when the
// database is already up to date). It is safe to run again.
//
// Before it changes anything it rehearses the migrations and the plan's
// own SQL in a transaction it rolls back, and checks there that every
// relation the grant files and the catalogue name exists and that every
// relation the catalogue reads has a grant file to the reader; if not, it
// returns a *Refusal, having changed nothing.
func Database(ctx context.Context, conn *pgx.Conn, p Plan) (applied []string, err error) {
	sets := []migrate.Set{{Name: "plumbline", Files: sqlfiles.Migrations()}}
	if p.Demo {
		sets = append([]migrate.Set{{Name: "demo", Files: sqlfiles.Demo()}}, sets...)
	}
	if p.SQL != nil {
		sets = append(sets, migrate.Set{Name: OwnSet, Files: p.SQL})
	}
	if err := p.rehearse(ctx, conn, sets); err != nil {
		return nil, err
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
	cat := p.Catalog
	if cat == nil {
		if cat, err = catalog.Demo(); err != nil {
			return applied, err
		}
	}
	if _, err := conn.Exec(ctx, query.SeenViews(cat), pgx.QueryExecModeSimpleProtocol); err != nil {
		return applied, fmt.Errorf("create the views that filter figures by reach: %w", err)
	}
	if query.Rollups(cat) {
		// Built now, the rollups serve the first call; a server builds
		// them again as loads finish.
		if _, err := conn.Exec(ctx, "SELECT count(*) FROM "+query.RefreshFunction); err != nil {
			return applied, fmt.Errorf("build the rollups: %w", err)
		}
	}
	if err := grants.Apply(ctx, conn, p.Roles, p.Grants, cat); err != nil {
		return applied, err
	}
	limits := p.Limits
	if limits == (grants.Limits{}) {
		limits = grants.DefaultLimits()
	}
	return applied, grants.SetLimits(ctx, conn, p.Roles, limits)
}

// Refusal is why Database changed nothing.
type Refusal struct {
	// Missing lists the relations that would not exist once the
	// migrations and the plan's own SQL ran, each with what names it.
	Missing []Need
	// Ungranted lists the relations the catalogue reads that no grant file
	// to the reader names.
	Ungranted []Need
}

// Need is a relation and what names it: grant files and the place in the
// catalogue.
type Need struct {
	Relation string
	NamedBy  []string
}

func (r *Refusal) Error() string {
	var b strings.Builder
	b.WriteString("setup changed nothing:")
	if len(r.Missing) > 0 {
		fmt.Fprintf(&b, "\n%d relation(s) named below would not exist after plumbline's migrations and your SQL; create them, or name the right files:", len(r.Missing))
		for _, n := range r.Missing {
			fmt.Fprintf(&b, "\n  %s (named by %s)", n.Relation, strings.Join(n.NamedBy, "; "))
		}
	}
	if len(r.Ungranted) > 0 {
		fmt.Fprintf(&b, "\n%d relation(s) the catalogue reads have no grant file, so the reader could not read them; add <schema>.<relation>.sql with its grain and review to the grants directory:", len(r.Ungranted))
		for _, n := range r.Ungranted {
			fmt.Fprintf(&b, "\n  %s (named by %s)", n.Relation, strings.Join(n.NamedBy, "; "))
		}
	}
	return b.String()
}

// rehearse runs the sets in a transaction it rolls back and refuses the
// plan if a relation it needs would not exist, or if the catalogue reads a
// relation no grant file names.
func (p Plan) rehearse(ctx context.Context, conn *pgx.Conn, sets []migrate.Set) error {
	needs := p.needs()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := migrate.Rehearse(ctx, tx, sets...); err != nil {
		return fmt.Errorf("setup changed nothing: %w", err)
	}
	names := make([]string, len(needs))
	for i, n := range needs {
		names[i] = n.Relation
	}
	rows, err := tx.Query(ctx, "SELECT rel FROM unnest($1::text[]) rel WHERE to_regclass(rel) IS NULL ORDER BY 1", names)
	if err != nil {
		return err
	}
	missing, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	refusal := &Refusal{}
	for _, n := range needs {
		if slices.Contains(missing, n.Relation) {
			refusal.Missing = append(refusal.Missing, n)
		}
	}
	if p.Catalog != nil {
		var toReader []*grants.Grant
		for _, g := range p.Grants {
			if g.To == grants.ToReader {
				toReader = append(toReader, g)
			}
		}
		for _, rel := range grants.Ungranted(p.Catalog, toReader) {
			refusal.Ungranted = append(refusal.Ungranted, Need{Relation: rel, NamedBy: []string{"the catalogue at " + p.Catalog.Where(rel).String()}})
		}
	}
	if len(refusal.Missing) > 0 || len(refusal.Ungranted) > 0 {
		return refusal
	}
	return nil
}

// needs lists every relation the grant files and the catalogue name, with
// what names it, sorted.
func (p Plan) needs() []Need {
	by := map[string][]string{}
	for _, g := range p.Grants {
		what := "grant file " + g.File
		if g.To == grants.ToAnalyst {
			what = "analyst grant file " + g.File
		}
		by[g.Relation] = append(by[g.Relation], what)
	}
	if p.Catalog != nil {
		for _, rel := range p.Catalog.Relations() {
			by[rel] = append(by[rel], "the catalogue at "+p.Catalog.Where(rel).String())
		}
	}
	out := make([]Need, 0, len(by))
	for _, rel := range slices.Sorted(maps.Keys(by)) {
		out = append(out, Need{Relation: rel, NamedBy: by[rel]})
	}
	return out
}
