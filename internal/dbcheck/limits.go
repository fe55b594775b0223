package dbcheck

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/grants"
)

// This file checks the analyst's limits: the settings plumbline setup
// gives the analyst role and the agent login (sql/roles/analyst.sql).

// roleSettings reads the settings of the session's login and of the role
// $1, as each holds them in this database: its own in this database,
// else its own in every database (pg_db_role_setting).
const roleSettings = `
SELECT r.rolname::text, split_part(c.setting, '=', 1), substr(c.setting, strpos(c.setting, '=') + 1)
FROM pg_roles r
JOIN pg_db_role_setting s ON s.setrole = r.oid
 AND s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
CROSS JOIN LATERAL unnest(s.setconfig) c(setting)
WHERE r.rolname IN (session_user, $1)
ORDER BY s.setdatabase DESC`

// InspectLimits reads the limits the session's login (the analyst's
// door's login) and the analyst role carry, and sets them against want:
// one line for each that is missing, or looser than want.
func InspectLimits(ctx context.Context, q Querier, analyst string, want grants.Limits) ([]string, error) {
	settings, err := want.Settings()
	if err != nil {
		return nil, err
	}
	var login string
	if err := q.QueryRow(ctx, "SELECT session_user::text").Scan(&login); err != nil {
		return nil, fmt.Errorf("inspect the analyst's limits: %w", err)
	}
	rows, err := q.Query(ctx, roleSettings, analyst)
	if err != nil {
		return nil, fmt.Errorf("inspect the analyst's limits: %w", err)
	}
	held := map[[2]string]string{} // the first value read of each role's setting: this database's, if any
	var role, name, value string
	_, err = pgx.ForEachRow(rows, []any{&role, &name, &value}, func() error {
		if _, ok := held[[2]string{role, name}]; !ok {
			held[[2]string{role, name}] = value
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("inspect the analyst's limits: %w", err)
	}
	var extra []string
	for _, who := range []struct{ what, name string }{{"login", login}, {"role", analyst}} {
		for _, s := range settings {
			v, ok := held[[2]string{who.name, s.Name}]
			if !ok {
				extra = append(extra, fmt.Sprintf("no %s of its own on %s %s, which bounds the analyst's statements; plumbline setup sets it to %s",
					s.Name, who.what, who.name, s.Value))
				continue
			}
			if looser, err := s.Looser(v); err != nil || looser {
				extra = append(extra, fmt.Sprintf("%s = %s on %s %s, looser than the %s plumbline is configured with; plumbline setup sets it",
					s.Name, v, who.what, who.name, s.Value))
			}
		}
	}
	return extra, nil
}
