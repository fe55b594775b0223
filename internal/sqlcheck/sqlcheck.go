package sqlcheck

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Limits on a statement, checked before and while it is parsed.
const (
	// MaxBytes is the longest statement taken, in bytes.
	MaxBytes = 64 << 10
	// MaxDepth is how deeply a statement's parse tree may nest.
	MaxDepth = 200
)

// Checks name the rules a statement can break; they are stable, and the
// audit log and the refusal carry them.
const (
	CheckEmpty      = "empty"       // no statement at all
	CheckText       = "text"        // not UTF-8, or a NUL character
	CheckSize       = "size"        // longer than MaxBytes
	CheckSyntax     = "syntax"      // PostgreSQL's parser refused it
	CheckDepth      = "depth"       // nests deeper than MaxDepth
	CheckOne        = "one"         // more than one statement
	CheckSelect     = "select"      // a statement other than SELECT (a utility, EXPLAIN, COPY)
	CheckWrite      = "write"       // INSERT, UPDATE, DELETE or MERGE, anywhere
	CheckInto       = "into"        // SELECT INTO
	CheckLocking    = "locking"     // FOR UPDATE, FOR SHARE and the like
	CheckRelation   = "relation"    // a relation not on the allow-list
	CheckUnqualifed = "unqualified" // a relation named without its schema
	CheckCatalog    = "catalog"     // a system catalogue
	CheckFunction   = "function"    // a function not on the allow-list
	CheckAttribute  = "attribute"   // a name after a dot that may call a function, or cast to a type, off the allow-lists
	CheckOperator   = "operator"    // an operator not on the allow-list
	CheckType       = "type"        // a cast to a type not on the allow-list
	CheckParameter  = "parameter"   // a $n parameter
	CheckConstruct  = "construct"   // a construct the analyst's SELECT does not offer
	CheckTies       = "ties"        // FETCH … WITH TIES on the outermost query, whose ties pages cannot order
	// CheckOrder is a result column of a type PostgreSQL has no ordering
	// for (json, xml, point…), which pages cannot be ordered by. The door
	// finds it, asking the database.
	CheckOrder = "order"
)

// Refusal says why a statement may not run. It never holds the caller's
// text.
type Refusal struct {
	Check   string   // one of the Check constants
	Rule    string   // what the statement must do instead
	Choices []string // what is allowed, where a list helps
	// Position is the character (1-based, as PostgreSQL counts) where the
	// parser stopped or the refused part starts; 0 when unknown.
	Position int
}

func (r *Refusal) Error() string { return r.Check + ": " + r.Rule }

// Policy is what a statement may use.
type Policy struct {
	// Relations are the relations it may read, schema.name.
	Relations []string
	// Catalog holds the names of the functions and types PostgreSQL finds
	// by an unqualified name: those of pg_catalog, as CatalogQuery reads
	// them from the database. A name after a dot can reach one of them
	// without a call in sight: where no column has the name, PostgreSQL
	// reads alias.name as a call of that function on the whole row,
	// (expression).name as a call on the expression or a cast to that
	// type. Such a name is refused unless it is on an allow-list; a name
	// that is none of them can only be a column. If nil, every name after
	// a dot that is on no allow-list is refused.
	Catalog map[string]bool
}

// CatalogQuery reads the names for Policy.Catalog: every function and type
// of pg_catalog, one name a row. The analyst's statements run with a
// search path of pg_catalog alone (and pg_temp, where the analyst can
// create nothing and PostgreSQL never looks for functions).
const CatalogQuery = `SELECT proname::text FROM pg_catalog.pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace
UNION SELECT typname::text FROM pg_catalog.pg_type WHERE typnamespace = 'pg_catalog'::regnamespace`

// Statement is a statement that passed.
type Statement struct {
	// Fingerprint identifies the statement's shape, whatever its constants,
	// spacing and comments (pg_query's fingerprint).
	Fingerprint string
	// Relations are the allow-listed relations it reads, sorted.
	Relations []string
	// Columns is how many columns its result has, or -1 when its select
	// list has a * (SELECT *, t.*), which only the database can expand.
	Columns int
	// SQL is the checked statement deparsed from its tree.
	SQL string

	tree *pg.ParseResult // the checked tree, which Paged orders
	own  []*pg.Node      // the sort keys it begins with: its ORDER BY, or its DISTINCT ON
}

// Paged returns the statement as one page of its rows, LIMIT $1 OFFSET $2
// bound by the caller, in a total order: its own ORDER BY (or, without
// one, its DISTINCT ON, which an ORDER BY must begin with) and then each
// of its columns in turn, by position. Rows alike in every column are
// interchangeable, so the pages of a statement hold each row of its result
// exactly once, and an inner LIMIT keeps the same rows on every page.
//
// columns is how many columns the result has: Columns, or what the
// database says of a statement with a *. Paged deparses the checked tree
// with those keys appended; it is not safe for concurrent use.
func (s *Statement) Paged(columns int) (string, error) {
	sel := s.tree.Stmts[0].Stmt.GetSelectStmt()
	keys := slices.Clip(s.own)
	for i := 1; i <= columns; i++ {
		keys = append(keys, pg.MakeSortByNode(pg.MakeAConstIntNode(int64(i), -1), pg.SortByDir_SORTBY_DEFAULT, pg.SortByNulls_SORTBY_NULLS_DEFAULT, -1))
	}
	defer func(checked []*pg.Node) { sel.SortClause = checked }(sel.SortClause)
	sel.SortClause = keys
	sql, err := pg.Deparse(s.tree)
	if err != nil {
		return "", unpassable()
	}
	return "SELECT * FROM (" + sql + ") AS page LIMIT $1 OFFSET $2", nil
}

// Check parses text with PostgreSQL's parser and checks it against the
// policy. It returns the statement, or a *Refusal.
func Check(text string, p *Policy) (*Statement, error) {
	switch {
	case len(text) > MaxBytes:
		return nil, &Refusal{Check: CheckSize, Rule: fmt.Sprintf("is longer than %d bytes; send one SELECT of a sensible length.", MaxBytes), Choices: []string{}}
	case !utf8.ValidString(text) || strings.ContainsRune(text, 0):
		return nil, &Refusal{Check: CheckText, Rule: "must be UTF-8 text without NUL characters.", Choices: []string{}}
	}
	tree, err := pg.Parse(text)
	if err != nil {
		return nil, parseRefusal(err)
	}
	switch len(tree.Stmts) {
	case 0:
		return nil, &Refusal{Check: CheckEmpty, Rule: "holds no statement; send one SELECT.", Choices: []string{}}
	case 1:
	default:
		return nil, &Refusal{Check: CheckOne, Rule: "holds more than one statement; send exactly one SELECT per call.", Choices: []string{},
			Position: position(text, tree.Stmts[1].StmtLocation)}
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil {
		return nil, topRefusal(tree.Stmts[0].Stmt)
	}
	w := &walker{text: text, policy: p, read: map[string]bool{}}
	if r := w.selectStmt(sel, 1); r != nil {
		return nil, r
	}
	if sel.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		r := &Refusal{Check: CheckTies, Choices: []string{},
			Rule: "fetches its rows WITH TIES, and pages cannot put tied rows in a fixed order without changing which rows tie; " +
				"use LIMIT, or keep the ties with rank() OVER (ORDER BY …) in a sub-select and filter on the rank."}
		if c := sel.LimitCount.GetAConst(); c != nil {
			r.Position = position(text, c.Location)
		}
		return nil, r
	}
	tree = &pg.ParseResult{Version: tree.Version, Stmts: []*pg.RawStmt{{Stmt: tree.Stmts[0].Stmt}}}
	sql, err := pg.Deparse(tree)
	if err != nil {
		return nil, unpassable()
	}
	fp, err := pg.Fingerprint(sql)
	if err != nil {
		return nil, unpassable()
	}
	rels := make([]string, 0, len(w.read))
	for r := range w.read {
		rels = append(rels, r)
	}
	sort.Strings(rels)
	return &Statement{Fingerprint: fp, Relations: rels, Columns: columns(sel), SQL: sql, tree: tree, own: ownKeys(sel)}, nil
}

// unpassable refuses a statement whose checked tree cannot be deparsed.
func unpassable() *Refusal {
	return &Refusal{Check: CheckConstruct, Rule: "uses a construct plumbline cannot pass on as checked; write it more plainly.", Choices: []string{}}
}

// columns counts the columns of a SELECT's result from its tree: those of
// its select list, of its first VALUES row, or of its first operand when it
// is a set operation; -1 when its select list has a *.
func columns(s *pg.SelectStmt) int {
	switch {
	case s.Larg != nil:
		return columns(s.Larg)
	case len(s.ValuesLists) > 0:
		return len(s.ValuesLists[0].GetList().GetItems())
	}
	for _, t := range s.TargetList {
		v := t.GetResTarget().GetVal()
		fields := v.GetColumnRef().GetFields()
		if ind := v.GetAIndirection(); ind != nil {
			fields = ind.Indirection
		}
		if len(fields) > 0 && fields[len(fields)-1].GetAStar() != nil {
			return -1
		}
	}
	return len(s.TargetList)
}

// ownKeys are the sort keys a SELECT's pages begin with: its ORDER BY; or,
// without one, the expressions of its DISTINCT ON, which PostgreSQL
// requires an ORDER BY to begin with; or none.
func ownKeys(s *pg.SelectStmt) []*pg.Node {
	if len(s.SortClause) > 0 {
		return s.SortClause
	}
	var keys []*pg.Node
	for _, e := range s.DistinctClause {
		if e.GetNode() != nil { // plain DISTINCT is one empty node
			keys = append(keys, pg.MakeSortByNode(e, pg.SortByDir_SORTBY_DEFAULT, pg.SortByNulls_SORTBY_NULLS_DEFAULT, -1))
		}
	}
	return keys
}

// parseRefusal turns the parser's error into a refusal that keeps only its
// position: the parser's message quotes the statement.
func parseRefusal(err error) *Refusal {
	var pe *parser.Error
	if errors.As(err, &pe) {
		return &Refusal{Check: CheckSyntax, Rule: "is not valid PostgreSQL; check the SQL near the position given.", Choices: []string{}, Position: pe.Cursorpos}
	}
	// The tree was too deep for the decoder (protobuf's recursion limit).
	return &Refusal{Check: CheckDepth, Rule: fmt.Sprintf("nests deeper than %d levels; write it flatter, using WITH queries.", MaxDepth), Choices: []string{}}
}

// topRefusal refuses a statement that is not a SELECT.
func topRefusal(n *pg.Node) *Refusal {
	r := &Refusal{Choices: []string{}}
	switch n.Node.(type) {
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt:
		r.Check, r.Rule = CheckWrite, "changes data; the analyst's door only reads: send one SELECT."
	case *pg.Node_CreateTableAsStmt:
		r.Check, r.Rule = CheckInto, "creates a table; the analyst's door only reads: send one SELECT."
	default:
		r.Check, r.Rule = CheckSelect, "is not a SELECT (EXPLAIN, COPY, SET, CALL, DO and other commands are not offered); send one SELECT."
	}
	return r
}

// position turns a 0-based byte offset into the statement into a 1-based
// character position; a negative offset is unknown.
func position(text string, offset int32) int {
	if offset < 0 || int(offset) > len(text) {
		return 0
	}
	return utf8.RuneCountInString(text[:offset]) + 1
}

// walker checks a parse tree, node by node.
type walker struct {
	text   string
	policy *Policy
	ctes   [][]string      // the WITH query names in scope, innermost last
	read   map[string]bool // allow-listed relations read
}

// selectStmt checks a SELECT, giving its WITH queries their scope: in a
// plain WITH each query sees the ones before it, in WITH RECURSIVE every
// one, and the SELECT itself sees them all.
func (w *walker) selectStmt(s *pg.SelectStmt, depth int) *Refusal {
	if depth > MaxDepth {
		return w.tooDeep()
	}
	if s.IntoClause != nil {
		return &Refusal{Check: CheckInto, Rule: "is a SELECT INTO, which creates a table; the analyst's door only reads.", Choices: []string{}}
	}
	if len(s.LockingClause) > 0 {
		return &Refusal{Check: CheckLocking, Rule: "locks rows (FOR UPDATE, FOR SHARE); the analyst's door only reads, without locks.", Choices: []string{}}
	}
	if with := s.WithClause; with != nil {
		var names []string
		for _, c := range with.Ctes {
			names = append(names, c.GetCommonTableExpr().GetCtename())
		}
		for i, c := range with.Ctes {
			cte := c.GetCommonTableExpr()
			visible := names[:i]
			if with.Recursive {
				visible = names
			}
			if r := w.cte(cte, visible, depth+1); r != nil {
				return r
			}
		}
		w.ctes = append(w.ctes, names)
		defer func() { w.ctes = w.ctes[:len(w.ctes)-1] }()
	}
	return w.fields(s.ProtoReflect(), depth, "with_clause")
}

// cte checks one WITH query: it must be a SELECT, seeing visible.
func (w *walker) cte(c *pg.CommonTableExpr, visible []string, depth int) *Refusal {
	if c == nil {
		return w.construct(nil)
	}
	sel := c.Ctequery.GetSelectStmt()
	if sel == nil {
		return &Refusal{Check: CheckWrite, Rule: "has a WITH query that changes data; every WITH query must be a SELECT.", Choices: []string{},
			Position: position(w.text, c.Location)}
	}
	w.ctes = append(w.ctes, visible)
	defer func() { w.ctes = w.ctes[:len(w.ctes)-1] }()
	if r := w.selectStmt(sel, depth+1); r != nil {
		return r
	}
	// The rest of the WITH query (column names, SEARCH and CYCLE clauses).
	return w.fields(c.ProtoReflect(), depth, "ctequery")
}

// fields checks every set field of a message but the skipped ones, in the
// order the message declares them: protobuf's Range visits fields in an
// order it varies on purpose, and the first rule broken must not depend on
// it.
func (w *walker) fields(m protoreflect.Message, depth int, skip ...protoreflect.Name) *Refusal {
	fds := m.Descriptor().Fields()
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		if fd.Message() == nil || slices.Contains(skip, fd.Name()) || !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		if fd.IsList() {
			l := v.List()
			for j := 0; j < l.Len(); j++ {
				if r := w.message(l.Get(j).Message(), depth+1); r != nil {
					return r
				}
			}
		} else if r := w.message(v.Message(), depth+1); r != nil {
			return r
		}
	}
	return nil
}

// message checks one node of the tree and what it holds.
func (w *walker) message(m protoreflect.Message, depth int) *Refusal {
	if depth > MaxDepth {
		return w.tooDeep()
	}
	switch n := m.Interface().(type) {
	case *pg.Node:
		return w.fields(m, depth-1) // a wrapper, not a level of its own
	case *pg.SelectStmt:
		return w.selectStmt(n, depth)
	case *pg.RangeVar:
		return w.relation(n)
	case *pg.FuncCall:
		if r := w.function(n); r != nil {
			return r
		}
	case *pg.ColumnRef:
		// alias.name, schema.relation.name: the last name is a column,
		// or else a function of the whole row.
		if f := n.Fields; len(f) > 1 {
			if r := w.attribute(f[len(f)-1], n.Location); r != nil {
				return r
			}
		}
	case *pg.A_Indirection:
		// (expression).name: a field, or else a function of the
		// expression or a cast of it.
		for _, f := range n.Indirection {
			if r := w.attribute(f, location(n.Arg)); r != nil {
				return r
			}
		}
	case *pg.A_Expr:
		if r := w.operator(n); r != nil {
			return r
		}
	case *pg.SubLink: // expression op ANY (SELECT …), or ALL
		if len(n.OperName) > 0 && !builtin(n.OperName, Operators) {
			return w.operatorRefusal(n.Location)
		}
	case *pg.SortBy: // ORDER BY expression USING op
		if len(n.UseOp) > 0 && !builtin(n.UseOp, Operators) {
			return w.operatorRefusal(n.Location)
		}
	case *pg.TypeName:
		if r := w.typeName(n); r != nil {
			return r
		}
	case *pg.ParamRef:
		return &Refusal{Check: CheckParameter, Rule: "uses a $n parameter; write the values into the statement.", Choices: []string{}, Position: position(w.text, n.Location)}
	case *pg.InsertStmt, *pg.UpdateStmt, *pg.DeleteStmt, *pg.MergeStmt:
		return &Refusal{Check: CheckWrite, Rule: "changes data; the analyst's door only reads.", Choices: []string{}}
	default:
		if !harmless[m.Descriptor().Name()] {
			return w.construct(m)
		}
	}
	return w.fields(m, depth)
}

// harmless are the kinds of node a SELECT may hold without further
// checks beyond those of what they hold.
var harmless = map[protoreflect.Name]bool{
	"ResTarget": true, "ColumnRef": true, "A_Star": true, "A_Const": true, "BoolExpr": true, "NullTest": true,
	"BooleanTest": true, "TypeCast": true, "JoinExpr": true, "Alias": true, "RangeSubselect": true,
	"RangeFunction": true, "SortBy": true, "WindowDef": true, "SubLink": true, "CaseExpr": true, "CaseWhen": true,
	"CoalesceExpr": true, "MinMaxExpr": true, "A_Indirection": true, "A_Indices": true, "A_ArrayExpr": true,
	"RowExpr": true, "SQLValueFunction": true, "String": true, "Integer": true, "Float": true, "Boolean": true,
	"BitString": true, "List": true, "GroupingSet": true, "GroupingFunc": true, "CollateClause": true,
	"CTESearchClause": true, "CTECycleClause": true, "ColumnDef": true,
}

// construct refuses a kind of node the analyst's SELECT does not offer.
func (w *walker) construct(m protoreflect.Message) *Refusal {
	r := &Refusal{Check: CheckConstruct, Choices: []string{},
		Rule: "uses a construct the analyst's SELECT does not offer (such as XML, SQL/JSON, TABLESAMPLE or a utility clause); write it with plain SQL."}
	if m != nil {
		if fd := m.Descriptor().Fields().ByName("location"); fd != nil {
			r.Position = position(w.text, int32(m.Get(fd).Int()))
		}
	}
	return r
}

func (w *walker) tooDeep() *Refusal {
	return &Refusal{Check: CheckDepth, Rule: fmt.Sprintf("nests deeper than %d levels; write it flatter, using WITH queries.", MaxDepth), Choices: []string{}}
}

// relation checks a relation a statement reads: a WITH query in scope, or
// schema.name on the allow-list.
func (w *walker) relation(rv *pg.RangeVar) *Refusal {
	pos := position(w.text, rv.Location)
	allowed := slices.Clone(w.policy.Relations)
	if allowed == nil {
		allowed = []string{}
	}
	if rv.Catalogname != "" {
		return &Refusal{Check: CheckRelation, Rule: "names a database; name relations as schema.relation, from the allow-list (choices).", Choices: allowed, Position: pos}
	}
	if rv.Schemaname == "" {
		for _, scope := range w.ctes {
			if slices.Contains(scope, rv.Relname) {
				return nil
			}
		}
	}
	name := rv.Schemaname + "." + rv.Relname
	switch {
	case isCatalog(rv.Schemaname, rv.Relname):
		return &Refusal{Check: CheckCatalog, Rule: "reads a system catalogue; the analyst reads only the allow-list (choices).", Choices: allowed, Position: pos}
	case rv.Schemaname == "":
		return &Refusal{Check: CheckUnqualifed, Rule: "names a relation without its schema that is no WITH query in scope; name it as schema.relation, from the allow-list (choices).", Choices: allowed, Position: pos}
	case !slices.Contains(w.policy.Relations, name):
		return &Refusal{Check: CheckRelation, Rule: "reads a relation that is not on the analyst's allow-list (choices).", Choices: allowed, Position: pos}
	}
	w.read[name] = true
	return nil
}

// isCatalog reports whether a relation is one of PostgreSQL's own.
func isCatalog(schema, name string) bool {
	switch {
	case schema == "pg_catalog", schema == "information_schema", strings.HasPrefix(schema, "pg_"):
		return true
	case schema == "" && strings.HasPrefix(name, "pg_"):
		return true
	}
	return false
}

// qualified splits a list of String nodes (a function, operator or type
// name) into its schema and name; ok is false for anything else.
func qualified(names []*pg.Node) (schema, name string, ok bool) {
	parts := make([]string, len(names))
	for i, n := range names {
		s := n.GetString_()
		if s == nil {
			return "", "", false
		}
		parts[i] = s.Sval
	}
	switch len(parts) {
	case 1:
		return "", parts[0], true
	case 2:
		return parts[0], parts[1], true
	}
	return "", "", false
}

// builtin reports whether a qualified name is on list, unqualified or in
// pg_catalog.
func builtin(names []*pg.Node, list map[string]bool) bool {
	schema, name, ok := qualified(names)
	return ok && (schema == "" || schema == "pg_catalog") && list[name]
}

func (w *walker) function(f *pg.FuncCall) *Refusal {
	if builtin(f.Funcname, Functions) {
		return nil
	}
	return &Refusal{Check: CheckFunction, Choices: sortedKeys(Functions), Position: position(w.text, f.Location),
		Rule: "calls a function that is not among the safe built-ins (choices); sleeping, settings, files, large objects, " +
			"advisory locks, remote connections and the catalogue are never offered."}
}

// attribute checks a name written after a dot, at location: a String
// node (a * is every column, and a subscript is no name). It passes when
// PostgreSQL can read it only as a column or field, or else only as a call
// or a cast the allow-lists hold.
func (w *walker) attribute(n *pg.Node, location int32) *Refusal {
	s := n.GetString_()
	if s == nil || Functions[s.Sval] || Types[s.Sval] || (w.policy.Catalog != nil && !w.policy.Catalog[s.Sval]) {
		return nil
	}
	return &Refusal{Check: CheckAttribute, Choices: sortedKeys(Functions), Position: position(w.text, location),
		Rule: "writes a name after a dot that is also the name of a built-in function or type not among the safe built-ins (choices); " +
			"PostgreSQL calls that function, or casts to that type, wherever no column has the name. Name such a column without " +
			"its relation's alias, or rename it with AS in a sub-select, and call functions as function(argument)."}
}

// location is where an expression starts, if its node says; -1 if not.
func location(n *pg.Node) int32 {
	m := n.ProtoReflect()
	fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("node"))
	if fd == nil {
		return -1
	}
	inner := m.Get(fd).Message()
	if loc := inner.Descriptor().Fields().ByName("location"); loc != nil {
		return int32(inner.Get(loc).Int())
	}
	return -1
}

func (w *walker) operator(e *pg.A_Expr) *Refusal {
	switch e.Kind {
	case pg.A_Expr_Kind_AEXPR_OP, pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL, pg.A_Expr_Kind_AEXPR_DISTINCT,
		pg.A_Expr_Kind_AEXPR_NOT_DISTINCT, pg.A_Expr_Kind_AEXPR_NULLIF, pg.A_Expr_Kind_AEXPR_IN:
		if !builtin(e.Name, Operators) {
			return w.operatorRefusal(e.Location)
		}
	}
	return nil
}

// operatorRefusal refuses an operator that is not on the allow-list, at
// location.
func (w *walker) operatorRefusal(location int32) *Refusal {
	return &Refusal{Check: CheckOperator, Rule: "uses an operator that is not among the built-in ones allowed (choices).",
		Choices: sortedKeys(Operators), Position: position(w.text, location)}
}

func (w *walker) typeName(t *pg.TypeName) *Refusal {
	if !t.PctType && builtin(t.Names, Types) {
		return nil
	}
	return &Refusal{Check: CheckType, Rule: "casts to a type that is not among the plain types allowed (choices); catalogue types such as regclass are never offered.",
		Choices: sortedKeys(Types), Position: position(w.text, t.Location)}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
