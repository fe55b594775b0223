// Package grants owns what plumbline's database roles are given: the roles
// themselves, what they hold in each database, and the reviewed grant files
// that let the reader read one relation each.
//
// # Roles
//
// Six roles, with configurable names (Roles): the reader (NOLOGIN; every
// report runs as it), the logger (NOLOGIN; writes the request log and the
// analyst's audit log), auth (NOLOGIN; keeps the token store) and the login
// plumbline signs in as, a member of exactly those three; and for the
// analyst's door, the analyst (NOLOGIN; every statement of the door runs as
// it) and the agent login the door signs in as, a member of the analyst
// alone, so that no statement can become another role. Roles belong to the
// whole cluster, so CreateRoles leaves existing ones alone and may run any
// number of times.
//
// # Grant files
//
// A grant file, named <schema>.<relation>.sql, grants the reader SELECT on
// one relation (all columns, or a listed few) and USAGE on its schema, and
// nothing else; an analyst grant file does the same for the analyst role.
// It opens with a header:
//
//	-- Relation: metrics.agent_sales_daily
//	-- Grain: agent
//	-- Reviewed by: Dana Okafor, data platform
//	-- Reviewed on: 2026-11-02
//	-- Why: applications submitted and conversations lost per agent per
//	--      day: the sales report. Counts only, no member data.
//
// The grain says whose rows the relation holds: agent (rows name or key one
// agent), team (rows are teams) or alias (rows carry only an alias, never a
// person). The review says who agreed to the grant, when, and why. Load
// refuses a file whose header or statements break these rules; the relations
// the files name are the only ones the startup guard lets the login read.
//
// # What every role loses
//
// PostgreSQL lets every role read the statistics views (other sessions'
// application_name, which names the person a report runs for, and every
// table's row counts), pg_class's row and page estimates, the size
// functions, and use large objects, notifications, advisory locks and
// logical decoding messages. Apply takes all of that from PUBLIC in the
// database (Withheld lists it) and gives it back to the database's owner,
// the statistics to pg_read_all_stats, and to plumbline's roles the two
// functions they use; only a superuser can, and Apply fails for anyone
// else rather than leave it.
//
// The SQL files use {{reader}}, {{logger}}, {{auth}}, {{app}}, {{analyst}}
// and {{agent}} for the role names; they are rendered with the configured
// names when applied.
package grants
