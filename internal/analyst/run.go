package analyst

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"plumbline/internal/pgstore"
	"plumbline/internal/sqlcheck"
	"plumbline/internal/telemetry"
	"plumbline/reports/ask"
)

// This file runs a checked statement and turns its rows into an answer.

// run runs one page of a statement: in a read-only transaction as the
// analyst that ends in ROLLBACK, with the door's work_mem, a search path of
// the catalogue alone (unqualified names are refused anyway), the door's
// time zone, and one row more than the page to know whether there are
// more. The page is in a total order, the statement's own and then every
// column (sqlcheck.Statement.Paged); when its select list has a *, the
// transaction first asks PostgreSQL how many columns that is. The page is
// read within the door's bounds (page.add): past one, reading stops, the
// statement is cancelled, and the page holds the rows that fit or the call
// is refused.
func (d *Door) run(ctx context.Context, c *call, args *arguments, stmt *sqlcheck.Statement) *Answer {
	var cols, types []string
	p := &page{valueBytes: d.opts.ValueBytes, pageBytes: d.opts.PageBytes, size: args.PageSize}
	start := time.Now()
	ctx, span := telemetry.Span(ctx, "report_sql")
	defer span.End()
	queue := func(b *pgx.Batch, paged string, columns int) {
		b.Queue(paged, args.PageSize+1, args.Offset).Query(func(r pgx.Rows) error {
			for r.Next() {
				if cols == nil {
					cols, types = columnsOf(r)
				}
				if err := p.add(r); err != nil {
					return pgstore.Abandon(r, err)
				}
			}
			var tooLong *pgproto3.ExceededMaxBodyLenErr
			if errors.As(r.Err(), &tooLong) { // a row longer than a page may be, left unread
				over := &overBound{bound: "page"}
				if columns == 1 {
					over = &overBound{bound: "value", column: 1}
				}
				return pgstore.Abandon(r, over)
			}
			if r.Err() != nil {
				return r.Err() // no result to describe
			}
			cols, types = columnsOf(r)
			return nil
		})
	}
	var err error
	if stmt.Columns >= 0 {
		var paged string
		if paged, err = stmt.Paged(stmt.Columns); err == nil {
			err = d.agent.Batch(ctx, d.tx(), func(b *pgx.Batch) {
				d.settings(b)
				queue(b, paged, stmt.Columns)
			})
		}
	} else {
		err = d.agent.BatchDescribing(ctx, d.tx(), d.settings, stmt.SQL, func(desc *pgconn.StatementDescription, b *pgx.Batch) error {
			paged, err := stmt.Paged(len(desc.Fields))
			if err == nil {
				queue(b, paged, len(desc.Fields))
			}
			return err
		})
	}
	telemetry.Since(ctx, telemetry.StageReportSQL, start)
	var over *overBound
	switch {
	case errors.As(err, &over) && over.bound == "page" && len(p.rows) > 0:
		p.more = true // the rows that fit, and the rest on the next page
	case errors.As(err, &over):
		return c.refuse(d.overRefusal(over))
	case err != nil:
		if r := d.unorderable(ctx, stmt, err); r != nil {
			return c.refuse(r)
		}
		return d.refused(c, err, stmt)
	}
	ans := &PageAnswer{RequestID: c.id, Columns: cols, Types: types, Rows: p.rows, Offset: args.Offset, PageSize: args.PageSize,
		Relations: stmt.Relations, Fingerprint: stmt.Fingerprint, Notes: []string{unverified},
		Statement: StatementAt{Role: d.opts.Role, StatementTimeout: d.opts.StatementTimeout.String(), TimeZone: d.opts.TimeZone}}
	if ans.Rows == nil {
		ans.Rows = [][]any{}
	}
	if p.more {
		ans.HasMore = true
		next := args.Offset + len(p.rows)
		ans.NextOffset = &next
	}
	if args.Clamped {
		ans.Notes = append(ans.Notes, fmt.Sprintf("page_size is at most %d, so this page holds at most %d rows; page on with next_offset.", MaxPageSize, MaxPageSize))
	}
	if over != nil {
		ans.Notes = append(ans.Notes, fmt.Sprintf("This page holds %d rows, not %d: the next would take it past the analyst's bound of %s a page. "+
			"Page on with next_offset, or select fewer or shorter columns (left(column, n), length(column), an aggregate) to have more rows a page.",
			len(p.rows), args.PageSize, kib(d.opts.PageBytes)))
	}
	if ans.HasMore || args.Offset > 0 {
		ans.Notes = append(ans.Notes, paged)
	}
	return &Answer{RequestID: c.id, Body: ans, Rows: len(ans.Rows)}
}

// paged is the note on an answer that spans pages.
const paged = "Pages are ordered by the statement's ORDER BY, if it has one, and then by every column in turn, " +
	"so each row comes exactly once across the pages."

// page is a page of rows as the door reads them.
type page struct {
	valueBytes, pageBytes int // the door's bounds
	size                  int // the rows the page shows
	rows                  [][]any
	bytes                 int  // the rows' JSON
	more                  bool // rows come after the page
}

// add reads the row r is on into the page: each value as the answer's
// JSON, none longer than the bound of a value as PostgreSQL sent it or
// as JSON, and the page's rows no longer than the bound of a page. The row
// after the page only says that there are more, and is not decoded.
func (p *page) add(r pgx.Rows) error {
	if len(p.rows) == p.size {
		p.more = true
		return nil
	}
	raw := r.RawValues()
	for i, v := range raw {
		if len(v) > p.valueBytes {
			return &overBound{bound: "value", column: i + 1}
		}
	}
	row := make([]any, len(raw))
	size := 1 // the brackets and commas of the row
	for i, v := range raw {
		f := r.FieldDescriptions()[i]
		enc, err := encode(r.Conn().TypeMap(), &f, v)
		if over := (*overBound)(nil); errors.As(err, &over) {
			over.column = i + 1
		}
		if err != nil {
			return err
		}
		if len(enc) > p.valueBytes {
			return &overBound{bound: "value", column: i + 1}
		}
		row[i], size = enc, size+len(enc)+1
	}
	if p.bytes+size > p.pageBytes {
		return &overBound{bound: "page"}
	}
	p.rows, p.bytes = append(p.rows, row), p.bytes+size
	return nil
}

// encode turns a value as PostgreSQL sent it into the answer's JSON.
// JSON is passed on as it is, compacted, never decoded: a short text of
// JSON can decode into many times its size.
func encode(m *pgtype.Map, f *pgconn.FieldDescription, v []byte) (json.RawMessage, error) {
	var value any
	switch {
	case v == nil:
		return json.RawMessage("null"), nil
	case f.DataTypeOID == pgtype.JSONOID || f.DataTypeOID == pgtype.JSONBOID:
		if f.DataTypeOID == pgtype.JSONBOID && f.Format == pgtype.BinaryFormatCode {
			v = v[1:] // jsonb's version
		}
		if jsonDepth(v) > maxJSONDepth {
			return nil, &overBound{bound: "depth"}
		}
		var b bytes.Buffer
		err := json.Compact(&b, v)
		return b.Bytes(), err
	default:
		t, ok := m.TypeForOID(f.DataTypeOID)
		switch {
		case ok:
			var err error
			if value, err = t.Codec.DecodeValue(m, f.DataTypeOID, f.Format, v); err != nil {
				return nil, err
			}
		case f.Format == pgtype.TextFormatCode:
			value = string(v)
		default:
			value = bytes.Clone(v)
		}
	}
	return json.Marshal(jsonValue(value, f.DataTypeOID))
}

// maxJSONDepth is how deeply a JSON value may nest: far more than data a
// model reads, far less than where a parser's own limit answers with an
// error instead of a refusal.
const maxJSONDepth = 64

// jsonDepth is how deeply the arrays and objects of the JSON text v nest.
func jsonDepth(v []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range v {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped, inString = c == '\\', c != '"'
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// overBound says which of the door's bounds a statement's rows went past:
// a value's (in which column), a page's, or a JSON value's depth.
type overBound struct {
	bound  string // "value", "page" or "depth", the refusal's check
	column int    // the value's column, from 1
}

func (o *overBound) Error() string { return "past the bound of a " + o.bound }

// overRefusal refuses a statement whose first rows go past a bound,
// teaching how to narrow it.
func (d *Door) overRefusal(o *overBound) *Refusal {
	r := &Refusal{Code: ask.CodeInvalidArgument, Argument: "sql", Check: o.bound, Choices: []string{}}
	switch o.bound {
	case "depth":
		r.Rule = fmt.Sprintf("returns a JSON value nested more than %d levels deep (column %d), deeper than an answer holds; "+
			"select a part of it (column -> 'key', column #> '{a,b}') or its text (column::text).", maxJSONDepth, o.column)
	case "value":
		r.Rule = fmt.Sprintf("returns a value longer than the analyst's bound of %s a value (column %d), so it was stopped unread; "+
			"select part of it (left(column, n)), its length (length(column)) or an aggregate of it.", kib(d.opts.ValueBytes), o.column)
	default:
		r.Rule = fmt.Sprintf("returns a row longer than the analyst's bound of %s a page, so it was stopped unread; "+
			"select fewer columns, or shorter ones (left(column, n)).", kib(d.opts.PageBytes))
	}
	return r
}

// kib writes a number of bytes in KiB.
func kib(n int) string {
	if n%1024 == 0 {
		return fmt.Sprintf("%d KiB", n/1024)
	}
	return fmt.Sprintf("%d bytes", n)
}

// tx is the transaction a statement runs in: read-only, as the analyst,
// ending in ROLLBACK.
func (d *Door) tx() pgstore.Tx { return pgstore.Tx{Role: d.opts.Role, Discard: true} }

// settings queues the door's settings of a statement's transaction.
func (d *Door) settings(b *pgx.Batch) {
	b.Queue("SELECT set_config('work_mem', $1, true), set_config('search_path', 'pg_catalog, pg_temp', true), set_config('TimeZone', $2, true)",
		d.opts.WorkMem, d.opts.TimeZone)
}

// unorderable explains a statement whose page PostgreSQL would not order
// (undefined_function: no ordering operator): the columns of a type it has
// no ordering for, found by describing the statement as written and asking
// PostgreSQL which of their types it can order. It returns nil for any
// other error, or when the columns are not the cause.
func (d *Door) unorderable(ctx context.Context, stmt *sqlcheck.Statement, err error) *Refusal {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42883" {
		return nil
	}
	var fields []pgconn.FieldDescription
	err = d.agent.BatchDescribing(ctx, d.tx(), d.settings, stmt.SQL, func(desc *pgconn.StatementDescription, _ *pgx.Batch) error {
		fields = desc.Fields
		return nil
	})
	if err != nil {
		return nil // the statement as written fails: its own error
	}
	oids := make([]uint32, len(fields))
	for i, f := range fields {
		oids[i] = f.DataTypeOID
	}
	orderable, err := d.agent.Orderable(ctx, oids)
	if err != nil {
		return nil
	}
	var which []string
	tm := pgtype.NewMap()
	for i, ok := range orderable {
		if ok {
			continue
		}
		col := fmt.Sprintf("column %d", i+1)
		if t, known := tm.TypeForOID(oids[i]); known {
			col += ", " + t.Name
		}
		which = append(which, col)
	}
	if len(which) == 0 {
		return nil
	}
	what := "a column"
	if len(which) > 1 {
		what = "columns"
	}
	return &Refusal{Code: ask.CodeInvalidArgument, Argument: "sql", Check: sqlcheck.CheckOrder, Choices: []string{},
		Rule: fmt.Sprintf("returns %s of a type PostgreSQL cannot order (%s), and pages are ordered by every column so that each row comes exactly once; "+
			"cast such a column to text in the select list (a json column may become jsonb instead).", what, strings.Join(which, "; "))}
}

// columnsOf names a result's columns and their PostgreSQL types.
func columnsOf(r pgx.Rows) (names, types []string) {
	tm := r.Conn().TypeMap()
	for _, f := range r.FieldDescriptions() {
		typ := "unknown"
		if t, ok := tm.TypeForOID(f.DataTypeOID); ok {
			typ = t.Name
		}
		names, types = append(names, f.Name), append(types, typ)
	}
	return names, types
}

// jsonValue turns a value pgx decoded into what the answer carries:
// numbers as JSON numbers (numeric exactly as PostgreSQL wrote it), truth
// values, JSON as JSON, arrays as arrays, NULL as null, dates as
// YYYY-MM-DD, timestamps in RFC 3339, anything else as text.
func jsonValue(v any, oid uint32) any {
	switch v := v.(type) {
	case nil, bool, string, int16, int32, int64, pgtype.Numeric, map[string]any:
		return v
	case float32:
		return jsonFloat(float64(v))
	case float64:
		return jsonFloat(v)
	case time.Time:
		switch oid {
		case pgtype.DateOID:
			return v.Format(time.DateOnly)
		case pgtype.TimestampOID:
			return v.Format("2006-01-02T15:04:05.999999")
		}
		return v.Format(time.RFC3339Nano)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonValue(x, 0)
		}
		return out
	case []byte:
		return `\x` + hex.EncodeToString(v)
	case [16]byte:
		return fmt.Sprintf("%x-%x-%x-%x-%x", v[0:4], v[4:6], v[6:8], v[8:10], v[10:16])
	case driver.Valuer:
		if x, err := v.Value(); err == nil {
			return jsonValue(x, oid)
		}
	}
	return fmt.Sprint(v)
}

// jsonFloat keeps a float a number, except NaN and the infinities, which
// JSON has no number for.
func jsonFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

// refused turns what stopped a statement into a teaching refusal by its
// SQLSTATE; PostgreSQL's own message never reaches the caller, as it may
// quote the statement or the data.
func (d *Door) refused(c *call, err error, stmt *sqlcheck.Statement) *Answer {
	var pgErr *pgconn.PgError
	var unpassable *sqlcheck.Refusal
	switch {
	case errors.As(err, &unpassable):
		return c.refuse(statementRefusal(unpassable))
	case errors.Is(err, ask.ErrTimeout):
		if errors.Is(err, pgstore.ErrNotEnded) {
			d.opts.Log.Error("a statement past its timeout may still be running: the agent login could not end its backend "+
				"(it needs EXECUTE on pg_terminate_backend)", "request_id", c.id, "err", err)
		}
		return c.refuse(&Refusal{Code: ask.CodeTimeout, Argument: "sql", Check: "timeout", SQLState: "57014", Choices: []string{},
			Rule: fmt.Sprintf("ran past the analyst's statement timeout of %s; narrow it (fewer days, fewer rows, an aggregate).", d.opts.StatementTimeout)})
	case !errors.As(err, &pgErr):
		return d.fault(c, err)
	}
	r := &Refusal{Code: ask.CodeInvalidArgument, Argument: "sql", Check: "database", SQLState: pgErr.Code, Choices: []string{}}
	code := pgErr.Code
	switch {
	case code == "42501":
		r.Rule, r.Choices = "reads something the analyst role may not read, such as a column its grant leaves out; these are the columns it may read (choices).", d.columnChoices(stmt.Relations)
	case code == "42703":
		r.Rule, r.Choices = "names a column that is not there; these are the columns of the relations it reads (choices).", d.columnChoices(stmt.Relations)
	case code == "42P01":
		r.Rule = "names a relation or alias that is not there; check the FROM clause and the aliases."
	case code == "42702":
		r.Rule = "names a column that more than one relation has; qualify it with its relation's alias."
	case code == "42803":
		r.Rule = "selects a column that is neither grouped nor aggregated; add it to GROUP BY or aggregate it."
	case code == "42883":
		r.Rule = "calls a function or operator with argument types it does not take; cast the arguments."
	case code == "42804" || code == "42846" || code == "42P18":
		r.Rule = "mixes types that do not match; cast one side to the other's type."
	case code == "22012":
		r.Rule = "divides by zero; divide by NULLIF(divisor, 0)."
	case strings.HasPrefix(code, "22"):
		r.Rule = "hit a value it could not compute (a bad cast, an overflow, an impossible date); check its casts and arithmetic."
	case strings.HasPrefix(code, "53"):
		r.Rule = fmt.Sprintf("needs more memory or temporary disk than the analyst's limits allow (work_mem %s, and temp_file_limit); "+
			"aggregate in smaller steps, over fewer rows or days.", d.opts.WorkMem)
	case strings.HasPrefix(code, "54"):
		r.Rule = "is too complex for PostgreSQL to run; simplify it."
	case strings.HasPrefix(code, "42") || strings.HasPrefix(code, "0A") || strings.HasPrefix(code, "21"):
		r.Rule = "could not be planned by PostgreSQL (see sqlstate); rewrite the part it names."
	default:
		return d.fault(c, err)
	}
	return c.refuse(r)
}

// columnChoices lists the columns the analyst may read of the relations
// named, or of every relation when none is.
func (d *Door) columnChoices(rels []string) []string {
	if len(rels) == 0 {
		rels = d.policy.Relations
	}
	out := []string{}
	for _, rel := range rels {
		for _, col := range d.columns[rel] {
			out = append(out, rel+"."+col.Name)
		}
	}
	return out
}

// readSchema reads, as the agent login, in one round trip: the columns of
// the allow-listed relations the analyst may read, in their order; and the
// names of the functions and types PostgreSQL may reach by a name after a
// dot (sqlcheck.Policy.Catalog).
func (d *Door) readSchema(ctx context.Context) (map[string][]column, map[string]bool, error) {
	out, names := map[string][]column{}, map[string]bool{}
	err := d.agent.Batch(ctx, pgstore.Tx{Role: d.opts.Role}, func(b *pgx.Batch) {
		b.Queue(`SELECT n.nspname || '.' || c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
			WHERE n.nspname || '.' || c.relname = ANY($1) AND has_column_privilege(c.oid, a.attnum, 'SELECT')
			ORDER BY 1, a.attnum`, d.policy.Relations).Query(func(rows pgx.Rows) error {
			var rel string
			var col column
			_, err := pgx.ForEachRow(rows, []any{&rel, &col.Name, &col.Type}, func() error {
				out[rel] = append(out[rel], col)
				return nil
			})
			return err
		})
		b.Queue(sqlcheck.CatalogQuery).Query(func(rows pgx.Rows) error {
			var name string
			_, err := pgx.ForEachRow(rows, []any{&name}, func() error {
				names[name] = true
				return nil
			})
			return err
		})
	})
	for _, rel := range d.policy.Relations {
		if err == nil && len(out[rel]) == 0 {
			d.opts.Log.Warn("the analyst cannot read a relation its grant file names; statements that read it will be refused", "relation", rel)
		}
	}
	return out, names, err
}
