package grants

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/query"
	sqlfiles "plumbline/sql"
)

// This file applies the roles and grants to a database.

// CreateRoles creates the roles and the login that do not exist yet, and
// makes the login a member of the reader, the logger and auth. Roles belong
// to the whole cluster; existing ones are left as they are, so it is safe to
// run again. It needs a role that may create roles.
func CreateRoles(ctx context.Context, conn *pgx.Conn, r Roles) error {
	script, err := rolesScript(r, "roles.sql")
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, script, pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("create roles: %w", err)
	}
	return nil
}

// Apply gives the roles what they hold in the connected database: the
// logger's privileges on the request log, no temporary tables for anyone by
// default, nothing of Withheld but for the database's owner,
// pg_read_all_stats and the two functions plumbline's roles use, and
// exactly the grants gs, in one transaction, but that the reader reads each
// of cat's sources only through the view that filters it by the caller's
// reach (query.SeenViews), which must exist. The database must be migrated
// and the roles must exist, and only a superuser may apply it. It is safe
// to run again, and a grant file removed since the last run is revoked.
func Apply(ctx context.Context, conn *pgx.Conn, r Roles, gs []*Grant, cat *catalog.Catalog) error {
	script, err := databaseScript(r, gs, cat)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, script, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("apply grants: %w", err)
		}
		return nil
	})
}

// Script renders everything CreateRoles, SetLimits and Apply run as one
// SQL script, with the views that filter cat's sources by reach before
// the grants, for a DBA to read or to apply by hand after plumbline's
// migrations.
func Script(r Roles, l Limits, gs []*Grant, cat *catalog.Catalog) (string, error) {
	roles, err := rolesScript(r, "roles.sql")
	if err != nil {
		return "", err
	}
	limits, err := limitsScript(r, l)
	if err != nil {
		return "", err
	}
	db, err := databaseScript(r, gs, cat)
	if err != nil {
		return "", err
	}
	return roles + "\n" + limits + "\n" + query.SeenViews(cat) + "\n" + db, nil
}

func rolesScript(r Roles, file string) (string, error) {
	if err := r.Check(); err != nil {
		return "", err
	}
	body, err := fs.ReadFile(sqlfiles.Roles(), file)
	if err != nil {
		return "", err
	}
	return r.render("roles/"+file, strings.ReplaceAll(string(body), "{{withheld}}", Withheld()))
}

// Withheld returns the query (sql/roles/withheld.sql) that lists what
// Apply takes from PUBLIC in each database, the built-ins that would show
// the analyst other sessions or the size of tables it may not read, or let
// it act beyond its statement: one row per object, as (catalog, oid, kind,
// object, privilege, columns, gives, statistic). The startup guard runs it
// to refuse a login that can still use any of them.
func Withheld() string {
	body, err := fs.ReadFile(sqlfiles.Roles(), "withheld.sql")
	if err != nil {
		panic(err) // the file is embedded; this cannot fail
	}
	return string(body)
}

func databaseScript(r Roles, gs []*Grant, cat *catalog.Catalog) (string, error) {
	db, err := rolesScript(r, "database.sql")
	if err != nil {
		return "", err
	}
	parts := []string{db}
	for _, g := range gs {
		text, err := r.render(g.File, g.sql)
		if err != nil {
			return "", err
		}
		parts = append(parts, "-- "+strings.Repeat("-", 20)+" "+g.File+"\n"+text)
	}
	return strings.Join(append(parts, seenScript(r, gs, cat)), "\n"), nil
}

// seenScript moves the reader's grant of each of cat's sources to the view
// that filters it by reach: the grant file stays the record of the review,
// and what the reader reads of the source is only what the caller may see.
// A source no grant file to the reader names is read through no view.
func seenScript(r Roles, gs []*Grant, cat *catalog.Catalog) string {
	granted := map[string]bool{}
	for _, g := range gs {
		if g.To == ToReader {
			granted[g.Relation] = true
		}
	}
	reader := pgx.Identifier{r.Reader}.Sanitize()
	var b strings.Builder
	fmt.Fprintf(&b, "-- %s the reader reads figures through\n", strings.Repeat("-", 20))
	for _, src := range cat.Sources() {
		fmt.Fprintf(&b, "REVOKE SELECT ON %s FROM %s;\n", pgx.Identifier(strings.SplitN(src.Relation, ".", 2)).Sanitize(), reader)
	}
	b.WriteString(query.SeenGrant(cat, r.Reader, func(src *catalog.Source) bool { return granted[src.Relation] }))
	return b.String()
}
