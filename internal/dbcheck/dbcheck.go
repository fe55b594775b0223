package dbcheck

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/grants"
	"plumbline/internal/pgstore"
	"plumbline/internal/query"
)

// Querier runs queries and transactions: a *pgx.Conn or a *pgxpool.Pool.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Policy is what the login may reach.
type Policy struct {
	// Read lists the relations (schema.name) the login may read: those its
	// grant files name, but the views in place of the sources they filter
	// (Seen).
	Read []string
	// Seen maps each source relation the catalogue sums figures from to
	// the view the login reads it through, filtered by the caller's reach:
	// reading the source itself is extra.
	Seen map[string]string
	// Filtered lists the views that must ask what the caller may see (the
	// views of Seen and those of the floor's totals): one that no longer
	// does is extra.
	Filtered []string
	// Roles lists the roles the login may be a member of: the reader, the
	// logger and auth.
	Roles []string
	// Own lists plumbline's own tables the login may touch, and how. If
	// nil, [Own]: what plumbline's server login holds. An empty list allows
	// none, as for the analyst's door's login, which writes nothing.
	Own []Table
	// Functions lists the functions the login may execute beyond what
	// every role may: a security-definer function, a grant to one of its
	// roles, or a built-in setup takes from PUBLIC. If nil,
	// [LoginFunctions]; an empty list allows none.
	Functions []string
}

// LoginPolicy is what plumbline's server login may reach: the relations of
// the reader's grant files gs, but each of cat's sources only through the
// view that filters it by reach, as a member of the reader, the logger and
// auth, with plumbline's own tables and functions.
func LoginPolicy(roles grants.Roles, gs []*grants.Grant, cat *catalog.Catalog) Policy {
	seen := map[string]string{}
	var filtered []string
	for _, src := range cat.Sources() {
		names := query.SeenNames(src)
		seen[src.Relation] = names[0]
		filtered = append(filtered, names[0], names[2])
		filtered = append(filtered, names[3:]...) // the rollup's view
	}
	slices.Sort(filtered)
	p := Policy{Read: grants.ReaderReads(gs, cat), Roles: roles.Held(), Seen: seen, Filtered: filtered}
	if query.Rollups(cat) {
		p.Functions = append(slices.Clone(LoginFunctions), query.RefreshFunction)
	}
	return p
}

// AnalystPolicy is what the analyst's door's login may reach: the analyst
// grants' relations gs, as a member of the analyst role alone, writing
// nothing and executing nothing but what every role may.
func AnalystPolicy(roles grants.Roles, gs []*grants.Grant) Policy {
	return Policy{Read: grants.Relations(gs), Roles: []string{roles.Analyst}, Own: []Table{}, Functions: []string{}}
}

// LoginFunctions are the functions plumbline's server login may execute
// beyond what every role may, each as sql/roles/database.sql grants it:
// auth prunes the sign-in state that can no longer be used (a
// security-definer function that holds the rules) and takes a
// transaction's advisory lock while it issues tokens or registers a
// client; the logger waits for the disk with a logical decoding message
// ([pgstore.FlushFunction]); and the reader reads what the transaction's
// caller may see, for the views that filter figures by it
// ([query.ReachFunction]). With rollups it also builds them again when
// their sources change ([query.RefreshFunction]).
var LoginFunctions = []string{"plumbline.prune_signin_state()", "pg_catalog.pg_advisory_xact_lock(bigint)", pgstore.FlushFunction, query.ReachFunction}

// functions returns the policy's functions.
func (p Policy) functions() []string {
	if p.Functions == nil {
		return LoginFunctions
	}
	return p.Functions
}

// own returns the policy's own tables.
func (p Policy) own() []Table {
	if p.Own == nil {
		return Own
	}
	return p.Own
}

// Table is one of plumbline's own tables and what the login may do to it,
// column by column, and whether it may delete rows.
type Table struct {
	Relation               string
	Select, Insert, Update []string
	Delete                 bool
}

// Own lists plumbline's own tables the login may touch, and how; it is
// exactly what sql/roles/database.sql grants: the request log, its
// outcomes and the analyst's audit log (the logger), and the token store
// and the directory and reach (auth). The login may do nothing else to them, and
// nothing at all to the rest of plumbline's schema.
var Own = []Table{{
	Relation: "plumbline.request_log",
	Select:   []string{"request_id", "person", "started_at", "counted"},
	Insert:   []string{"request_id", "person", "client", "tool", "arguments", "software"},
	Update:   []string{"counted"},
}, {
	Relation: "plumbline.request_outcome",
	Insert:   []string{"request_id", "outcome", "duration_ms", "row_count", "reach"},
}, {
	Relation: "plumbline.analyst_log",
	Select:   []string{"statement_id", "caller", "started_at", "outcome"},
	Insert:   []string{"statement_id", "caller", "client", "statement", "statement_bytes", "fingerprint"},
	Update:   []string{"outcome", "rule", "duration_ms", "row_count"},
}, {
	Relation: "plumbline.members",
	Select:   append([]string{"person_id", "updated_at", "scim_id", "created_at"}, memberWrites...),
	Insert:   append([]string{"person_id", "scim_id"}, memberWrites...),
	Update:   append([]string{"updated_at"}, memberWrites...),
	Delete:   true,
}, {
	Relation: "plumbline.oauth_clients",
	Select:   oauthClients, Insert: oauthClients,
}, {
	Relation: "plumbline.oauth_sessions",
	Select:   oauthSessions, Insert: oauthSessions,
}, {
	Relation: "plumbline.oauth_consents",
	Select:   oauthConsents, Insert: oauthConsents, Update: []string{"scope", "granted_at"},
}, {
	Relation: "plumbline.oauth_codes",
	Select:   oauthCodes, Insert: oauthCodes, Update: []string{"used_at"},
}, {
	Relation: "plumbline.oauth_tokens",
	Select:   oauthTokens, Insert: oauthTokens, Update: []string{"revoked_at"},
}, {
	Relation: "plumbline.oauth_client_failures",
	Select:   oauthClientFailures, Insert: oauthClientFailures,
}, {
	Relation: "plumbline.groups",
	Select:   []string{"group_id", "display_name", "external_id", "created_at", "updated_at"},
	Insert:   []string{"display_name", "external_id"},
	Update:   []string{"display_name", "external_id", "updated_at"},
	Delete:   true,
}, {
	Relation: "plumbline.group_members",
	Select:   groupMembers, Insert: groupMembers, Delete: true,
}, {
	Relation: "plumbline.directory_changes",
	Insert:   []string{"changed_by", "action", "person_id", "group_id"},
}, {
	Relation: "plumbline.scim_tokens",
	Select:   []string{"token_id", "token_hash", "name", "created_at", "expires_at", "last_used_at", "revoked_at"},
	Insert:   []string{"token_hash", "name", "expires_at"},
	Update:   []string{"last_used_at", "revoked_at"},
}, {
	Relation: "plumbline.reach",
	Select: []string{"reach_id", "person_id", "group_id", "sees", "team_key", "from_day", "to_day", "set_by", "set_at",
		"reason", "ended_by", "ended_at"},
	Insert: []string{"person_id", "group_id", "sees", "team_key", "from_day", "to_day", "set_by", "reason"},
	Update: []string{"to_day", "ended_by", "ended_at"},
}}

// The directory's columns: what the SCIM endpoint and the import write of
// a member, and the members of a group.
var (
	memberWrites = []string{"email", "display_name", "status", "user_name", "external_id", "employee_number",
		"given_name", "family_name", "kept_by"}
	groupMembers = []string{"group_id", "person_id"}
)

// The token store's tables' columns, every one of which auth reads and
// writes once.
var (
	oauthClients = []string{"client_id", "secret_hash", "auth_method", "client_name", "redirect_uris", "application_type", "created_at",
		"registered_from"}
	oauthSessions = []string{"session_hash", "person_id", "csrf", "created_at", "expires_at"}
	oauthConsents = []string{"person_id", "client_id", "redirect_uri", "scope", "granted_at"}
	oauthCodes    = []string{"code_hash", "client_id", "person_id", "redirect_uri", "code_challenge", "scope", "resource",
		"created_at", "expires_at", "used_at"}
	oauthTokens = []string{"token_id", "token_hash", "kind", "subject", "client_id", "scope", "issuer", "resource",
		"code_hash", "created_at", "expires_at", "revoked_at"}
	oauthClientFailures = []string{"client_id", "source", "failed_at"}
)

func (t Table) columns(priv string) []string {
	switch priv {
	case "SELECT":
		return t.Select
	case "INSERT":
		return t.Insert
	case "UPDATE":
		return t.Update
	}
	return nil
}

// Report is what the login can reach, set against the policy.
type Report struct {
	Login, Database string
	// Extra lists what the login can reach beyond the policy, one line
	// each. The server refuses to start while there is any.
	Extra []string
	// Missing lists what the policy gives the login that it cannot reach:
	// calls that need it will fail.
	Missing []string
}

// OK reports whether the login reaches nothing beyond the policy.
func (r *Report) OK() bool { return len(r.Extra) == 0 }

// refusalLines is how many extras Refusal lists before it points to
// plumbline guard for the rest.
const refusalLines = 20

// Refusal says why plumbline will not start with this login, which who
// names: what it can reach that it should not, the first refusalLines of
// it.
func (r *Report) Refusal(who string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s can reach more than plumbline needs, so plumbline will not start; revoke these:", who)
	for i, line := range r.Extra {
		if i == refusalLines {
			fmt.Fprintf(&b, "\n  ... and %d more (plumbline guard lists them all)", len(r.Extra)-refusalLines)
			break
		}
		b.WriteString("\n  " + line)
	}
	return b.String()
}

func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "login %s on database %s\n", r.Login, r.Database)
	if r.OK() {
		b.WriteString("nothing extra: the login reaches only its grant files' relations, plumbline's own tables as granted, and its roles\n")
	} else {
		fmt.Fprintf(&b, "extra (%d): plumbline will not start while its login can reach these; revoke them\n", len(r.Extra))
		for _, line := range r.Extra {
			b.WriteString("  " + line + "\n")
		}
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(&b, "missing (%d): calls that need these will fail; apply the grants (plumbline setup)\n", len(r.Missing))
		for _, line := range r.Missing {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}

// reach asks what the session's login can reach: one row per privilege,
// membership or attribute, as (kind, object, privilege, column, holders,
// origin, gives). $1 lists the relations whose column privileges are
// wanted, $2 the roles the policy lets the login hold; %s is
// [grants.Withheld].
//
// Relations outside the system schemas, schemas, the database, roles and
// attributes are asked of has_*_privilege and pg_has_role. The rest is read
// off access lists, and holders says who holds it: PUBLIC, the login, or a
// role of $2 (what another role holds, its membership stands for).
// Functions and the system catalogues count where the holder should not
// hold them, and origin names the rule: definer (a security-definer
// function outside the system schemas), setup (what setup takes from
// PUBLIC; gives says why), postgres (what PostgreSQL gives PUBLIC none of)
// or none (a grant to the login or its roles, where PUBLIC's would do no
// harm). On large objects, parameters, foreign-data wrappers, foreign
// servers and tablespaces every privilege counts. A built-in's owner, the
// bootstrap superuser, holds nothing here.
const reachQuery = `
WITH rels AS (
    SELECT c.oid, n.nspname || '.' || c.relname AS name, c.relkind
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p', 'S')
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp_)'
),
withheld AS (%s),
-- The login and the roles the policy lets it hold: what it reaches through
-- any other role, that role's membership stands for.
members AS (SELECT oid FROM pg_roles WHERE (rolname = session_user OR rolname = ANY($2)) AND pg_has_role(session_user, oid, 'MEMBER')),
-- What PostgreSQL gives PUBLIC none of to begin with (pg_read_file, pg_authid, ...).
kept AS (
    SELECT i.classoid, i.objoid, i.objsubid, p.priv
    FROM pg_init_privs i,
         LATERAL (SELECT coalesce(array_agg(a.privilege_type) FILTER (WHERE a.grantee = 0), '{}') AS public FROM aclexplode(i.initprivs) a) g,
         unnest(CASE WHEN i.classoid = 'pg_proc'::regclass THEN ARRAY['EXECUTE']
                     ELSE ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'] END) p(priv)
    WHERE p.priv <> ALL (g.public)
),
-- Every entry of the access lists of functions and of the system
-- catalogues and their columns, with the rule PUBLIC would break by holding it.
entries AS (
    SELECT 'function' AS kind, n.nspname || '.' || p.proname || '(' || oidvectortypes(p.proargtypes) || ')' AS object, '' AS col,
           a.privilege_type AS priv, a.grantee, n.nspname IN ('pg_catalog', 'information_schema') AND a.grantee = p.proowner AS builtin_owner,
           CASE WHEN n.nspname NOT IN ('pg_catalog', 'information_schema') THEN CASE WHEN p.prosecdef THEN 'definer' ELSE 'none' END
                WHEN w.oid IS NOT NULL THEN 'setup'
                WHEN k.objoid IS NOT NULL THEN 'postgres'
                ELSE 'none' END AS origin,
           coalesce(w.gives, '') AS gives
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    LEFT JOIN withheld w ON w.catalog = 'pg_proc'::regclass AND w.oid = p.oid
    LEFT JOIN kept k ON k.classoid = 'pg_proc'::regclass AND k.objoid = p.oid AND k.objsubid = 0 AND k.priv = 'EXECUTE',
    aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
    UNION ALL
    SELECT 'catalog', n.nspname || '.' || c.relname, x.col, x.priv, x.grantee, x.grantee = c.relowner,
           CASE WHEN w.oid IS NOT NULL AND x.priv = w.privilege AND (w.columns IS NULL OR x.col = ANY (w.columns)) THEN 'setup'
                WHEN EXISTS (SELECT FROM kept k WHERE k.classoid = 'pg_class'::regclass AND k.objoid = c.oid AND k.objsubid = 0
                             AND k.priv = x.priv)
                     AND NOT EXISTS (SELECT FROM pg_init_privs i, aclexplode(i.initprivs) ia
                                     WHERE i.classoid = 'pg_class'::regclass AND i.objoid = c.oid AND i.objsubid = x.attnum
                                       AND ia.grantee = 0 AND ia.privilege_type = x.priv) THEN 'postgres'
                ELSE 'none' END,
           coalesce(w.gives, '')
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN withheld w ON w.catalog = 'pg_class'::regclass AND w.oid = c.oid
    CROSS JOIN LATERAL (
        -- A grant on the whole relation holds the columns setup takes too.
        SELECT coalesce(wc.col, '') AS col, 0 AS attnum, a.privilege_type AS priv, a.grantee
        FROM aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a
        LEFT JOIN unnest(w.columns) wc(col) ON a.privilege_type = w.privilege
        UNION ALL
        SELECT t.attname, t.attnum, a.privilege_type, a.grantee
        FROM pg_attribute t, aclexplode(t.attacl) a
        WHERE t.attrelid = c.oid AND t.attnum > 0 AND NOT t.attisdropped AND t.attacl IS NOT NULL
    ) x
    WHERE n.nspname IN ('pg_catalog', 'information_schema') AND c.relkind IN ('r', 'v', 'm', 'f', 'p')
),
-- Every entry of the access lists of large objects, parameters,
-- foreign-data wrappers, foreign servers and tablespaces, none of which
-- plumbline's logins may hold.
others AS (
    SELECT 'large object' AS kind, l.oid::text AS object, coalesce(l.lomacl, acldefault('L', l.lomowner)) AS acl
    FROM pg_largeobject_metadata l
    UNION ALL SELECT 'parameter', p.parname, p.paracl FROM pg_parameter_acl p
    UNION ALL SELECT 'foreign-data wrapper', f.fdwname, coalesce(f.fdwacl, acldefault('F', f.fdwowner)) FROM pg_foreign_data_wrapper f
    UNION ALL SELECT 'foreign server', v.srvname, coalesce(v.srvacl, acldefault('S', v.srvowner)) FROM pg_foreign_server v
    UNION ALL SELECT 'tablespace', t.spcname, coalesce(t.spcacl, acldefault('t', t.spcowner)) FROM pg_tablespace t
)
SELECT 'login', session_user::text, current_database()::text, '', '', '', ''
UNION ALL
SELECT 'relation', r.name, p.priv, '', '', '', '' FROM rels r, unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'REFERENCES']) p(priv)
WHERE r.relkind <> 'S' AND has_any_column_privilege(session_user, r.oid, p.priv)
UNION ALL
SELECT 'relation', r.name, p.priv, '', '', '', '' FROM rels r, unnest(ARRAY['DELETE', 'TRUNCATE', 'TRIGGER']) p(priv)
WHERE r.relkind <> 'S' AND has_table_privilege(session_user, r.oid, p.priv)
UNION ALL
SELECT 'relation', r.name, p.priv, '', '', '', '' FROM rels r, unnest(ARRAY['SELECT', 'USAGE', 'UPDATE']) p(priv)
WHERE r.relkind = 'S' AND has_sequence_privilege(session_user, r.oid, p.priv)
UNION ALL
SELECT 'column', r.name, p.priv, a.attname::text, '', '', ''
FROM rels r JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped,
     unnest(ARRAY['SELECT', 'INSERT', 'UPDATE']) p(priv)
WHERE r.name = ANY($1) AND has_column_privilege(session_user, r.oid, a.attnum, p.priv)
UNION ALL
SELECT 'schema', nspname::text, 'CREATE', '', '', '', '' FROM pg_namespace WHERE has_schema_privilege(session_user, oid, 'CREATE')
UNION ALL
SELECT 'database', current_database()::text, p.priv, '', '', '', '' FROM unnest(ARRAY['CREATE', 'TEMPORARY']) p(priv)
WHERE has_database_privilege(session_user, current_database(), p.priv)
UNION ALL
SELECT 'role', rolname::text, 'MEMBER', '', '', '', '' FROM pg_roles
WHERE rolname <> session_user AND pg_has_role(session_user, oid, 'MEMBER')
UNION ALL
SELECT 'attribute', r.rolname::text, a.attr, '', '', '', ''
FROM pg_roles r, LATERAL (VALUES ('SUPERUSER', r.rolsuper), ('CREATEROLE', r.rolcreaterole), ('CREATEDB', r.rolcreatedb),
     ('BYPASSRLS', r.rolbypassrls), ('REPLICATION', r.rolreplication)) a(attr, held)
WHERE a.held AND pg_has_role(session_user, r.oid, 'MEMBER')
UNION ALL
SELECT e.kind, e.object, e.priv, e.col,
       string_agg(DISTINCT CASE e.grantee WHEN 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(e.grantee)) END, ', '),
       e.origin, e.gives
FROM entries e
WHERE e.grantee = 0 AND e.origin <> 'none' OR e.grantee IN (SELECT oid FROM members) AND NOT e.builtin_owner
GROUP BY e.kind, e.object, e.priv, e.col, e.origin, e.gives
UNION ALL
SELECT o.kind, o.object, a.privilege_type, '',
       string_agg(DISTINCT CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END, ', '), '', ''
FROM others o, aclexplode(o.acl) a
WHERE a.grantee = 0 OR a.grantee IN (SELECT oid FROM members)
GROUP BY o.kind, o.object, a.privilege_type
UNION ALL
SELECT 'setting', 'lo_compat_privileges', 'on', s.source, '', '', '' FROM pg_settings s
WHERE s.name = 'lo_compat_privileges' AND s.setting = 'on'`

// unfilteredQuery lists the views of $1 (schema.name) that exist but do not
// call the function $2: a view that reads its source without asking what
// the caller may see.
const unfilteredQuery = `
SELECT v FROM unnest($1::text[]) v
WHERE to_regclass(format('%I.%I', split_part(v, '.', 1), split_part(v, '.', 2))) IS NOT NULL
  AND NOT EXISTS (SELECT FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
                  WHERE r.ev_class = to_regclass(format('%I.%I', split_part(v, '.', 1), split_part(v, '.', 2)))
                    AND d.refclassid = 'pg_proc'::regclass AND d.refobjid = to_regprocedure($2))
ORDER BY 1`

// unfiltered lists, as extras, the views the policy's sources are read
// through that no longer filter them by the caller's reach: a view
// replaced by hand, which the reader would read whole.
func unfiltered(ctx context.Context, tx pgx.Tx, p Policy) ([]string, error) {
	if len(p.Filtered) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, unfilteredQuery, p.Filtered, query.ReachFunction)
	if err != nil {
		return nil, err
	}
	bare, err := pgx.CollectRows(rows, pgx.RowTo[string])
	out := make([]string, len(bare))
	for i, v := range bare {
		out[i] = fmt.Sprintf("SELECT on relation %s, which reads its source without asking %s what the caller may see; run plumbline setup again", v, query.ReachFunction)
	}
	return out, err
}

// reach is reachQuery with what setup takes from PUBLIC.
var reach = fmt.Sprintf(reachQuery, grants.Withheld())

// Inspect asks the database, in one query, what the connection's login can
// reach, and sets it against the policy.
func Inspect(ctx context.Context, q Querier, p Policy) (*Report, error) {
	own := make([]string, len(Own))
	for i, t := range Own {
		own[i] = t.Relation // every own table, judged column by column
	}
	r := &Report{}
	c := newComparison(p)
	err := pgx.BeginFunc(ctx, q, func(tx pgx.Tx) error {
		// The query reads a few thousand rows of the catalogue, but its
		// estimates run high enough for PostgreSQL to compile it first,
		// which takes seconds longer than running it.
		if _, err := tx.Exec(ctx, "SET LOCAL jit = off"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, reach, own, p.Roles)
		if err != nil {
			return err
		}
		var row reached
		_, err = pgx.ForEachRow(rows, []any{&row.kind, &row.object, &row.priv, &row.column, &row.holders, &row.origin, &row.gives}, func() error {
			if row.kind == "login" {
				r.Login, r.Database = row.object, row.priv
				c.login, c.database = row.object, row.priv
				return nil
			}
			c.add(row)
			return nil
		})
		if err != nil {
			return err
		}
		r.Extra, err = unfiltered(ctx, tx, p)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("inspect what the login can reach: %w", err)
	}
	r.Extra, r.Missing = append(c.extra(), r.Extra...), c.missing()
	return r, nil
}

// comparison sets what the login reaches against the policy.
type comparison struct {
	p               Policy
	login, database string
	held            map[held]bool
	grouped         map[extraGroup][]string // privileges or columns, one line each group
}

// reached is one row of the reach query.
type reached struct{ kind, object, priv, column, holders, origin, gives string }

// held is what a row of the reach query says the login holds.
type held struct{ kind, object, priv, column string }

// extraGroup is what one line of the report lists: what is extra on one
// object, held by the same roles for the same reason.
type extraGroup struct{ kind, object, what, holders, origin, gives string }

func newComparison(p Policy) *comparison {
	return &comparison{p: p, held: map[held]bool{}, grouped: map[extraGroup][]string{}}
}

// ownTable returns the policy's own table rel. Any of plumbline's own
// tables the policy does not list is owned with no privileges at all.
func (c *comparison) ownTable(rel string) (Table, bool) {
	for _, t := range c.p.own() {
		if t.Relation == rel {
			return t, true
		}
	}
	for _, t := range Own {
		if t.Relation == rel {
			return Table{Relation: rel}, true
		}
	}
	return Table{}, false
}

func (c *comparison) add(r reached) {
	kind, object, priv, column := r.kind, r.object, r.priv, r.column
	c.held[held{kind, object, priv, column}] = true
	extra := func(what, item string) {
		g := extraGroup{kind: kind, object: object, what: what, holders: r.holders, origin: r.origin, gives: r.gives}
		c.grouped[g] = append(c.grouped[g], item)
	}
	switch kind {
	case "relation":
		t, own := c.ownTable(object)
		switch {
		case own && t.columns(priv) != nil:
			// judged column by column
		case own && priv == "DELETE" && t.Delete:
		case priv == "SELECT" && slices.Contains(c.p.Read, object):
		case priv == "SELECT" && c.p.Seen[object] != "":
			extra("unfiltered", priv)
		case priv == "SELECT":
			extra("read", priv)
		default:
			extra("write", priv)
		}
	case "column":
		t, _ := c.ownTable(object)
		if !slices.Contains(t.columns(priv), column) {
			extra(priv, column)
		}
	case "role":
		if !slices.Contains(c.p.Roles, object) {
			extra("", object)
		}
	case "function":
		if !slices.Contains(c.p.functions(), object) {
			extra("", priv)
		}
	case "catalog":
		if column != "" {
			extra(priv, column)
		} else {
			extra("", priv)
		}
	case "setting":
		extra(column, priv) // the setting's source, and its value
	default:
		// Schema, database and attribute, and every privilege on large
		// objects, parameters, foreign-data wrappers, foreign servers and
		// tablespaces: never allowed.
		extra("", priv)
	}
}

// gravity orders the kinds of extras, gravest first.
var gravity = []string{"attribute", "role", "setting", "function", "parameter", "database", "tablespace", "schema",
	"foreign-data wrapper", "foreign server", "large object", "catalog", "relation", "column"}

// extra renders the extras: gravest kinds first, then by object.
func (c *comparison) extra() []string {
	type line struct {
		rank int
		text string
	}
	var lines []line
	for g, items := range c.grouped {
		kind, object, what := g.kind, g.object, g.what
		sort.Strings(items)
		list := strings.Join(items, ", ")
		var text string
		switch kind {
		case "relation":
			text = fmt.Sprintf("%s on relation %s", list, object)
			switch what {
			case "read":
				text += ", which no grant file names"
			case "unfiltered":
				text += ", which plumbline reads only through " + c.p.Seen[object] + ", the view that filters it by the caller's reach; run plumbline setup again"
			}
		case "column":
			text = fmt.Sprintf("%s (%s) on relation %s, beyond what plumbline's own table needs", what, list, object)
		case "schema":
			text = fmt.Sprintf("CREATE on schema %s", object)
		case "database":
			text = fmt.Sprintf("%s on database %s", list, object)
		case "role":
			text = fmt.Sprintf("membership in role %s", object)
		case "attribute":
			text = fmt.Sprintf("%s on role %s", list, object)
		case "setting":
			text = c.compatPrivileges(what)
		default:
			text = heldLine(g, items)
		}
		lines = append(lines, line{slices.Index(gravity, kind), text})
	}
	sort.Slice(lines, func(i, j int) bool {
		if lines[i].rank != lines[j].rank {
			return lines[i].rank < lines[j].rank
		}
		return lines[i].text < lines[j].text
	})
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.text
	}
	return out
}

// heldLine says what a login holds on an object through an access list
// (privs, or the privilege g.what on the columns privs), who holds it, why
// it may not, and the statement that takes it away.
func heldLine(g extraGroup, privs []string) string {
	privilege := strings.Join(privs, ", ")
	if g.what != "" {
		privilege = g.what + " (" + privilege + ")"
	}
	target, revokeOn := g.kind+" "+g.object, strings.ToUpper(g.kind)+" "+g.object
	switch g.kind {
	case "function":
		revokeOn = "FUNCTION " + g.object
		if g.origin == "definer" {
			target = "security-definer function " + g.object
		}
	case "catalog":
		target, revokeOn = "relation "+g.object, g.object
	case "foreign-data wrapper":
		revokeOn = "FOREIGN DATA WRAPPER " + ident(g.object)
	case "foreign server", "tablespace":
		revokeOn = strings.ToUpper(g.kind) + " " + ident(g.object)
	}
	it := "it"
	if g.what != "" {
		it = "them"
	}
	text := fmt.Sprintf("%s on %s, held by %s", privilege, target, g.holders)
	switch g.origin {
	case "definer":
		text += "; it runs with its owner's rights"
	case "setup":
		text += fmt.Sprintf("; setup takes %s from every role, as %s", it, g.gives)
	case "postgres":
		text += fmt.Sprintf("; PostgreSQL gives %s to no role by default", it)
	}
	roles := strings.Split(g.holders, ", ")
	if i := slices.Index(roles, "PUBLIC"); i >= 0 && g.origin == "setup" {
		// Setup takes it from PUBLIC again, and gives back what every
		// role keeps (the other columns of pg_class).
		text += ": run plumbline setup again"
		if roles = slices.Delete(roles, i, i+1); len(roles) == 0 {
			return text
		}
		text += ", and"
	} else {
		text += ":"
	}
	return fmt.Sprintf("%s REVOKE %s ON %s FROM %s", text, privilege, revokeOn, strings.Join(roles, ", "))
}

// compatPrivileges says that lo_compat_privileges is on, set from source
// (as pg_settings names it), and how to turn it off there.
func (c *comparison) compatPrivileges(source string) string {
	var fix string
	switch source {
	case "database":
		fix = fmt.Sprintf("ALTER DATABASE %s RESET lo_compat_privileges", ident(c.database))
	case "user":
		fix = fmt.Sprintf("ALTER ROLE %s RESET lo_compat_privileges", ident(c.login))
	case "database user":
		fix = fmt.Sprintf("ALTER ROLE %s IN DATABASE %s RESET lo_compat_privileges", ident(c.login), ident(c.database))
	default:
		fix = "ALTER SYSTEM SET lo_compat_privileges = off (or set it off in postgresql.conf), then SELECT pg_reload_conf()"
	}
	return fmt.Sprintf("lo_compat_privileges is on (set by the %s), so every role may read and change every large object: %s", source, fix)
}

// ident quotes a name for SQL where it needs quoting.
func ident(name string) string {
	if plainName.MatchString(name) {
		return name
	}
	return pgx.Identifier{name}.Sanitize()
}

var plainName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// missing lists what the policy gives that the login does not hold.
func (c *comparison) missing() []string {
	var out []string
	through := map[string]string{}
	for src, view := range c.p.Seen {
		through[view] = src
	}
	for _, rel := range c.p.Read {
		src := through[strings.TrimSuffix(rel, ":begins")]
		switch {
		case c.held[held{"relation", rel, "SELECT", ""}]:
		case src != "":
			out = append(out, fmt.Sprintf("cannot read %s, a view through which it reads %s, filtered by reach (or it does not exist); run plumbline setup again", rel, src))
		default:
			out = append(out, fmt.Sprintf("cannot read %s, which a grant file names (or it does not exist)", rel))
		}
	}
	for _, role := range c.p.Roles {
		if !c.held[held{"role", role, "MEMBER", ""}] {
			out = append(out, fmt.Sprintf("not a member of role %s", role))
		}
	}
	for _, f := range c.p.functions() {
		switch {
		case c.held[held{"function", f, "EXECUTE", ""}]:
		case f == pgstore.FlushFunction:
			out = append(out, fmt.Sprintf("cannot execute %s, with which the request log waits for the disk", f))
		default:
			out = append(out, fmt.Sprintf("cannot execute %s (or it does not exist)", f))
		}
	}
	for _, t := range c.p.own() {
		for _, priv := range []string{"SELECT", "INSERT", "UPDATE"} {
			var lacking []string
			for _, col := range t.columns(priv) {
				if !c.held[held{"column", t.Relation, priv, col}] {
					lacking = append(lacking, col)
				}
			}
			if lacking != nil {
				out = append(out, fmt.Sprintf("cannot %s (%s) on %s", priv, strings.Join(lacking, ", "), t.Relation))
			}
		}
		if t.Delete && !c.held[held{"relation", t.Relation, "DELETE", ""}] {
			out = append(out, fmt.Sprintf("cannot DELETE on %s", t.Relation))
		}
	}
	return out
}
