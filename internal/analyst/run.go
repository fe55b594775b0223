package analyst

import (
	"context"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"plumbline/internal/pgstore"
	"plumbline/internal/sqlcheck"
	"plumbline/internal/telemetry"
	"plumbline/reports"
)

// This file runs a checked statement and turns its rows into an answer.

// run runs one page of a statement: in a read-only transaction as the
// analyst that ends in ROLLBACK, with the door's work_mem, a search path of
// the catalogue alone (unqualified names are refused anyway), the door's
// time zone, and one row more than the page to know whether there are
// more.
func (d *Door) run(ctx context.Context, c *call, args *arguments, stmt *sqlcheck.Statement) *Answer {
	var cols, types []string
	var rows [][]any
	start := time.Now()
	ctx, span := telemetry.Span(ctx, "report_sql")
	defer span.End()
	err := d.agent.Batch(ctx, pgstore.Tx{Role: d.opts.Role, Discard: true}, func(b *pgx.Batch) {
		b.Queue("SELECT set_config('work_mem', $1, true), set_config('search_path', 'pg_catalog, pg_temp', true), set_config('TimeZone', $2, true)",
			d.opts.WorkMem, d.opts.TimeZone)
		b.Queue(stmt.Paged(), args.PageSize+1, args.Offset).Query(func(r pgx.Rows) error {
			for r.Next() {
				values, err := r.Values()
				if err != nil {
					return err
				}
				fields := r.FieldDescriptions()
				row := make([]any, len(values))
				for i, v := range values {
					row[i] = jsonValue(v, fields[i].DataTypeOID)
				}
				rows = append(rows, row)
			}
			if r.Err() != nil {
				return r.Err() // no result to describe
			}
			cols, types = columnsOf(r)
			return nil
		})
	})
	telemetry.Since(ctx, telemetry.StageReportSQL, start)
	if err != nil {
		return d.refused(c, err, stmt)
	}
	ans := &PageAnswer{RequestID: c.id, Columns: cols, Types: types, Rows: rows, Offset: args.Offset, PageSize: args.PageSize,
		Relations: stmt.Relations, Fingerprint: stmt.Fingerprint, Notes: []string{unverified},
		Statement: StatementAt{Role: d.opts.Role, StatementTimeout: d.opts.StatementTimeout.String(), TimeZone: d.opts.TimeZone}}
	if ans.Rows == nil {
		ans.Rows = [][]any{}
	}
	if len(rows) > args.PageSize {
		ans.Rows, ans.HasMore = rows[:args.PageSize], true
		next := args.Offset + args.PageSize
		ans.NextOffset = &next
	}
	if args.Clamped {
		ans.Notes = append(ans.Notes, fmt.Sprintf("page_size is at most %d, so this page holds at most %d rows; page on with next_offset.", MaxPageSize, MaxPageSize))
	}
	if !stmt.Ordered && (ans.HasMore || args.Offset > 0) {
		ans.Notes = append(ans.Notes, "The statement has no ORDER BY, so its rows come in no fixed order and pages may overlap or miss rows; "+
			"order by columns that make each row's place unique.")
	}
	return &Answer{RequestID: c.id, Body: ans, Rows: len(ans.Rows)}
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
	switch {
	case errors.Is(err, reports.ErrTimeout):
		return c.refuse(&Refusal{Code: reports.CodeTimeout, Argument: "sql", Check: "timeout", SQLState: "57014", Choices: []string{},
			Rule: fmt.Sprintf("ran past the analyst's statement timeout of %s; narrow it (fewer days, fewer rows, an aggregate)", d.opts.StatementTimeout)})
	case !errors.As(err, &pgErr):
		return d.fault(c, err)
	}
	r := &Refusal{Code: reports.CodeInvalidArgument, Argument: "sql", Check: "database", SQLState: pgErr.Code, Choices: []string{}}
	code := pgErr.Code
	switch {
	case code == "42501":
		r.Rule, r.Choices = "reads something the analyst role may not read, such as a column its grant leaves out; these are the columns it may read (choices)", d.columnChoices(stmt.Relations)
	case code == "42703":
		r.Rule, r.Choices = "names a column that is not there; these are the columns of the relations it reads (choices)", d.columnChoices(stmt.Relations)
	case code == "42P01":
		r.Rule = "names a relation or alias that is not there; check the FROM clause and the aliases"
	case code == "42702":
		r.Rule = "names a column that more than one relation has; qualify it with its relation's alias"
	case code == "42803":
		r.Rule = "selects a column that is neither grouped nor aggregated; add it to GROUP BY or aggregate it"
	case code == "42883":
		r.Rule = "calls a function or operator with argument types it does not take; cast the arguments"
	case code == "42804" || code == "42846" || code == "42P18":
		r.Rule = "mixes types that do not match; cast one side to the other's type"
	case code == "22012":
		r.Rule = "divides by zero; divide by NULLIF(divisor, 0)"
	case strings.HasPrefix(code, "22"):
		r.Rule = "hit a value it could not compute (a bad cast, an overflow, an impossible date); check its casts and arithmetic"
	case strings.HasPrefix(code, "53"):
		r.Rule = fmt.Sprintf("needs more memory or disk than the analyst's work_mem of %s allows; aggregate in smaller steps", d.opts.WorkMem)
	case strings.HasPrefix(code, "54"):
		r.Rule = "is too complex for PostgreSQL to run; simplify it"
	case strings.HasPrefix(code, "42") || strings.HasPrefix(code, "0A") || strings.HasPrefix(code, "21"):
		r.Rule = "could not be planned by PostgreSQL (see sqlstate); rewrite the part it names"
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

// readColumns reads, as the agent login, the columns of the allow-listed
// relations the analyst may read, in their order.
func (d *Door) readColumns(ctx context.Context) (map[string][]column, error) {
	out := map[string][]column{}
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
	})
	for _, rel := range d.policy.Relations {
		if err == nil && len(out[rel]) == 0 {
			d.opts.Log.Warn("the analyst cannot read a relation its grant file names; statements that read it will be refused", "relation", rel)
		}
	}
	return out, err
}
