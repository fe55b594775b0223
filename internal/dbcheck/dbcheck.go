package dbcheck

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/grants"
	"plumbline/internal/pgstore"
)

// Querier runs queries: a *pgx.Conn or a *pgxpool.Pool.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Policy is what the login may reach.
type Policy struct {
	// Read lists the relations (schema.name) the login may read: those its
	// grant files name.
	Read []string
	// Roles lists the roles the login may be a member of: the reader, the
	// logger and auth.
	Roles []string
	// Own lists plumbline's own tables the login may touch, and how. If
	// nil, [Own]: what plumbline's server login holds. An empty list allows
	// none, as for the analyst's door's login, which writes nothing.
	Own []Table
	// Functions lists the security-definer functions the login may
	// execute. If nil, [OwnFunctions]; an empty list allows none.
	Functions []string
	// Flushes says the login must be able to run [pgstore.FlushFunction],
	// with which the request log's batch waits for the disk.
	Flushes bool
}

// LoginPolicy is what plumbline's server login may reach: the relations of
// the reader's grant files gs, as a member of the reader, the logger and
// auth, with plumbline's own tables and functions.
func LoginPolicy(roles grants.Roles, gs []*grants.Grant) Policy {
	return Policy{Read: grants.Relations(gs), Roles: roles.Held(), Flushes: true}
}

// AnalystPolicy is what the analyst's door's login may reach: the analyst
// grants' relations gs, as a member of the analyst role alone, writing
// nothing.
func AnalystPolicy(roles grants.Roles, gs []*grants.Grant) Policy {
	return Policy{Read: grants.Relations(gs), Roles: []string{roles.Analyst}, Own: []Table{}, Functions: []string{}}
}

// OwnFunctions are plumbline's own security-definer functions its server
// login may execute, as sql/roles/database.sql grants to auth: pruning the
// sign-in state that can no longer be used, by the rules the function holds.
var OwnFunctions = []string{"plumbline.prune_signin_state()"}

// functions returns the policy's functions.
func (p Policy) functions() []string {
	if p.Functions == nil {
		return OwnFunctions
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
// column by column.
type Table struct {
	Relation               string
	Select, Insert, Update []string
}

// Own lists plumbline's own tables the login may touch, and how; it is
// exactly what sql/roles/database.sql grants: the request log, its
// outcomes and the analyst's audit log (the logger), and the membership
// table and token store (auth). The login may do nothing else to them, and
// nothing at all to the rest of plumbline's schema.
var Own = []Table{{
	Relation: "plumbline.request_log",
	Select:   []string{"request_id", "person", "started_at", "counted"},
	Insert:   []string{"request_id", "person", "client", "tool", "arguments"},
	Update:   []string{"counted"},
}, {
	Relation: "plumbline.request_outcome",
	Insert:   []string{"request_id", "outcome", "duration_ms", "row_count"},
}, {
	Relation: "plumbline.analyst_log",
	Select:   []string{"statement_id", "caller", "started_at", "outcome"},
	Insert:   []string{"statement_id", "caller", "client", "statement", "statement_bytes", "fingerprint"},
	Update:   []string{"outcome", "rule", "duration_ms", "row_count"},
}, {
	Relation: "plumbline.members",
	Select:   []string{"person_id", "email", "display_name", "status"},
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
}}

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
// membership or attribute, as (kind, object, privilege, column). $1 lists
// the relations whose column privileges are wanted.
const reach = `
WITH rels AS (
    SELECT c.oid, n.nspname || '.' || c.relname AS name, c.relkind
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p', 'S')
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp_)'
)
SELECT 'login', session_user::text, current_database()::text, ''
UNION ALL
SELECT 'relation', r.name, p.priv, '' FROM rels r, unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'REFERENCES']) p(priv)
WHERE r.relkind <> 'S' AND has_any_column_privilege(session_user, r.oid, p.priv)
UNION ALL
SELECT 'relation', r.name, p.priv, '' FROM rels r, unnest(ARRAY['DELETE', 'TRUNCATE', 'TRIGGER']) p(priv)
WHERE r.relkind <> 'S' AND has_table_privilege(session_user, r.oid, p.priv)
UNION ALL
SELECT 'relation', r.name, p.priv, '' FROM rels r, unnest(ARRAY['SELECT', 'USAGE', 'UPDATE']) p(priv)
WHERE r.relkind = 'S' AND has_sequence_privilege(session_user, r.oid, p.priv)
UNION ALL
SELECT 'column', r.name, p.priv, a.attname::text
FROM rels r JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped,
     unnest(ARRAY['SELECT', 'INSERT', 'UPDATE']) p(priv)
WHERE r.name = ANY($1) AND has_column_privilege(session_user, r.oid, a.attnum, p.priv)
UNION ALL
SELECT 'schema', nspname::text, 'CREATE', '' FROM pg_namespace WHERE has_schema_privilege(session_user, oid, 'CREATE')
UNION ALL
SELECT 'database', current_database()::text, p.priv, '' FROM unnest(ARRAY['CREATE', 'TEMPORARY']) p(priv)
WHERE has_database_privilege(session_user, current_database(), p.priv)
UNION ALL
SELECT 'role', rolname::text, 'MEMBER', '' FROM pg_roles
WHERE rolname <> session_user AND pg_has_role(session_user, oid, 'MEMBER')
UNION ALL
SELECT 'attribute', r.rolname::text, a.attr, ''
FROM pg_roles r, LATERAL (VALUES ('SUPERUSER', r.rolsuper), ('CREATEROLE', r.rolcreaterole), ('CREATEDB', r.rolcreatedb),
     ('BYPASSRLS', r.rolbypassrls), ('REPLICATION', r.rolreplication)) a(attr, held)
WHERE a.held AND pg_has_role(session_user, r.oid, 'MEMBER')
UNION ALL
SELECT 'function', n.nspname || '.' || p.proname || '(' || oidvectortypes(p.proargtypes) || ')', 'EXECUTE', ''
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE p.prosecdef AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND has_function_privilege(session_user, p.oid, 'EXECUTE')
UNION ALL
SELECT 'flush', $2, 'EXECUTE', '' WHERE has_function_privilege(session_user, $2, 'EXECUTE')`

// Inspect asks the database, in one query, what the connection's login can
// reach, and sets it against the policy.
func Inspect(ctx context.Context, q Querier, p Policy) (*Report, error) {
	own := make([]string, len(Own))
	for i, t := range Own {
		own[i] = t.Relation // every own table, judged column by column
	}
	rows, err := q.Query(ctx, reach, own, pgstore.FlushFunction)
	if err != nil {
		return nil, fmt.Errorf("inspect what the login can reach: %w", err)
	}
	r := &Report{}
	c := newComparison(p)
	var kind, object, priv, column string
	_, err = pgx.ForEachRow(rows, []any{&kind, &object, &priv, &column}, func() error {
		if kind == "login" {
			r.Login, r.Database = object, priv
			return nil
		}
		c.add(kind, object, priv, column)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("inspect what the login can reach: %w", err)
	}
	r.Extra, r.Missing = c.extra(), c.missing()
	return r, nil
}

// comparison sets what the login reaches against the policy.
type comparison struct {
	p       Policy
	held    map[reached]bool
	grouped map[extraGroup][]string // privileges or columns, one line each group
}

// reached is one row of the reach query.
type reached struct{ kind, object, priv, column string }

// extraGroup is what one line of the report lists: what is extra on one
// object.
type extraGroup struct{ kind, object, what string }

func newComparison(p Policy) *comparison {
	return &comparison{p: p, held: map[reached]bool{}, grouped: map[extraGroup][]string{}}
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

func (c *comparison) add(kind, object, priv, column string) {
	c.held[reached{kind, object, priv, column}] = true
	extra := func(what, item string) {
		g := extraGroup{kind, object, what}
		c.grouped[g] = append(c.grouped[g], item)
	}
	switch kind {
	case "relation":
		t, own := c.ownTable(object)
		switch {
		case own && t.columns(priv) != nil:
			// judged column by column
		case priv == "SELECT" && slices.Contains(c.p.Read, object):
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
	case "flush": // a built-in function every role may run by default
	default: // schema, database, attribute: never allowed
		extra("", priv)
	}
}

// gravity orders the kinds of extras, gravest first.
var gravity = []string{"attribute", "role", "function", "database", "schema", "relation", "column"}

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
			if what == "read" {
				text += ", which no grant file names"
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
		case "function":
			text = fmt.Sprintf("EXECUTE on security-definer function %s", object)
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

// missing lists what the policy gives that the login does not hold.
func (c *comparison) missing() []string {
	var out []string
	for _, rel := range c.p.Read {
		if !c.held[reached{"relation", rel, "SELECT", ""}] {
			out = append(out, fmt.Sprintf("cannot read %s, which a grant file names (or it does not exist)", rel))
		}
	}
	for _, role := range c.p.Roles {
		if !c.held[reached{"role", role, "MEMBER", ""}] {
			out = append(out, fmt.Sprintf("not a member of role %s", role))
		}
	}
	for _, f := range c.p.functions() {
		if !c.held[reached{"function", f, "EXECUTE", ""}] {
			out = append(out, fmt.Sprintf("cannot execute %s (or it does not exist)", f))
		}
	}
	if c.p.Flushes && !c.held[reached{"flush", pgstore.FlushFunction, "EXECUTE", ""}] {
		out = append(out, fmt.Sprintf("cannot execute %s, with which the request log waits for the disk (every role may, unless revoked)", pgstore.FlushFunction))
	}
	for _, t := range c.p.own() {
		for _, priv := range []string{"SELECT", "INSERT", "UPDATE"} {
			var lacking []string
			for _, col := range t.columns(priv) {
				if !c.held[reached{"column", t.Relation, priv, col}] {
					lacking = append(lacking, col)
				}
			}
			if lacking != nil {
				out = append(out, fmt.Sprintf("cannot %s (%s) on %s", priv, strings.Join(lacking, ", "), t.Relation))
			}
		}
	}
	return out
}
