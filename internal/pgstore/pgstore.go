package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/catalog"
	"plumbline/internal/query"
	"plumbline/internal/telemetry"
	"plumbline/reports/ask"
)

// Defaults for Options.
const (
	DefaultStatementTimeout = 30 * time.Second
	DefaultAcquireTimeout   = 15 * time.Second
)

// Options tune a Store. The zero value gives the defaults.
type Options struct {
	// StatementTimeout bounds each report query. If zero,
	// DefaultStatementTimeout.
	StatementTimeout time.Duration
	// AcquireTimeout bounds the wait for a pooled connection before the
	// call is answered "busy". If zero, DefaultAcquireTimeout.
	AcquireTimeout time.Duration
	// MaxConns caps the pool. If zero, pgx's default.
	MaxConns int32
	// Role is the role reports run as (SET LOCAL ROLE), the reader. If
	// empty, they run as the login.
	Role string
	// Foreign says the statements run on the store are written by
	// someone else (the analyst's door): when spans are recorded, theirs
	// show a statement's kind, never its text (telemetry.SQLTracer); no
	// state they leave on a connection reaches the next statement; and a
	// statement ends within the statement timeout and Grace, cancelled,
	// or else with its backend ended (see foreign.go).
	Foreign bool
	// MaxMessageBytes bounds each message read from the server, a row of
	// results above all: a bigger one is not read, and the statement is
	// cancelled and its connection closed. If zero, no bound.
	MaxMessageBytes int
	// DefaultReach is what a caller with no row of reach in force may see
	// through the views that filter figures by reach (query.SeenViews):
	// ask.SeesFloor or ask.SeesNone, as the engine's default
	// (plumbline serve --default-reach). If empty, the floor.
	DefaultReach string
}

// Store is a report store over a PostgreSQL pool.
type Store struct {
	pool *pgxpool.Pool
	cat  *catalog.Catalog
	opts Options

	built  statements      // the SQL of plans run before
	tracer pgx.BatchTracer // the pool's connections', if they trace

	// timeout and reach are the statement timeout, in milliseconds, and
	// the default reach every transaction sets, as the arguments of its
	// settings: made once, not for every transaction.
	timeout, reach any

	// unstamped is set once the roster's stamp cannot be read (a column
	// of a type PostgreSQL cannot hash, or a server before version 14):
	// the roster is then read whole every time.
	unstamped atomic.Bool
}

var _ ask.Store = (*Store)(nil)

// Open connects a pool to dsn.
func Open(ctx context.Context, dsn string, cat *catalog.Catalog, opts *Options) (*Store, error) {
	s := &Store{cat: cat}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.StatementTimeout == 0 {
		s.opts.StatementTimeout = DefaultStatementTimeout
	}
	if s.opts.AcquireTimeout == 0 {
		s.opts.AcquireTimeout = DefaultAcquireTimeout
	}
	if s.opts.DefaultReach == "" {
		s.opts.DefaultReach = ask.SeesFloor
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse database connection string: %w", redact(err))
	}
	if s.opts.MaxConns > 0 {
		cfg.MaxConns = s.opts.MaxConns
	}
	// Every transaction sets its statement timeout first thing, but the
	// server parses a batch's statements before it runs the first of them,
	// and parsing waits for the locks of the tables a statement names: on
	// a connection that has not prepared a report's query yet, a table
	// locked by someone else would hold the call past any timeout. The
	// connection's own setting covers that step too.
	timeout := strconv.FormatInt(s.opts.StatementTimeout.Milliseconds(), 10)
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = timeout
	s.timeout, s.reach = timeout, s.opts.DefaultReach
	if telemetry.Tracing() {
		cfg.ConnConfig.Tracer = telemetry.SQLTracer{Foreign: s.opts.Foreign}
	}
	cfg.ConnConfig.MaxProtocolMessageBodyLen = s.opts.MaxMessageBytes
	if s.opts.Foreign {
		foreign(cfg)
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("open database pool: %w", err)
	}
	s.tracer, _ = cfg.ConnConfig.Tracer.(pgx.BatchTracer)
	return s, nil
}

// Catalog returns the catalogue the store runs plans of.
func (s *Store) Catalog() *catalog.Catalog { return s.cat }

// Pool returns the underlying pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// readOnly runs the queries queue adds in one read-only transaction as the
// report role, in one snapshot: one round trip for the whole report.
//
// Each statement is planned once per connection, for any values of its
// parameters (Tx.Generic), and that plan is reused on every later call.
// PostgreSQL would otherwise plan a report anew on every call, for the
// dates and keys it is given: for the demo floor's reports at 1× to 100×
// that planning cost more than the plans it found saved, and at 1× it
// could take longer than the statement ran.
func (s *Store) readOnly(ctx context.Context, queue func(*pgx.Batch)) error {
	defer telemetry.Since(ctx, telemetry.StageReportSQL, time.Now())
	ctx, span := telemetry.Span(ctx, "report_sql")
	defer span.End()
	return s.Batch(ctx, Tx{Role: s.opts.Role, Snapshot: true, Generic: true}, queue)
}

// Run runs plans and reads their sources' coverage, all in one snapshot
// and one round trip.
func (s *Store) Run(ctx context.Context, plans ...*ask.Plan) ([]*ask.Result, error) {
	results := make([]*ask.Result, len(plans))
	stmts := make([]builtStatement, len(plans))
	var sources []*catalog.Source
	for i, plan := range plans {
		var err error
		if stmts[i], err = s.built.build(plan); err != nil {
			return nil, fmt.Errorf("build report query: %w", err)
		}
		for _, src := range plan.Sources() {
			if !slices.Contains(sources, src) {
				sources = append(sources, src)
			}
		}
		results[i] = &ask.Result{}
	}
	cov := map[string]ask.Coverage{}
	err := s.readOnly(ctx, func(b *pgx.Batch) {
		for i, plan := range plans {
			queueRows(b, stmts[i], plan, results[i])
		}
		s.queueCoverage(b, sources, cov)
	})
	for _, r := range results {
		r.Coverage = cov
	}
	return results, err
}

// queueRows queues a plan's statement, scanning its rows into res: the
// group key, every part's sum, each metric's kept and left-out agent-days,
// and each metric's left-out agent-days over all groups.
func queueRows(b *pgx.Batch, stmt builtStatement, plan *ask.Plan, res *ask.Result) {
	grouped, parts, metrics := plan.GroupBy != "", plan.NumParts(), len(plan.Metrics)
	res.LeftOut = make([]int64, metrics)
	b.Queue(stmt.sql, stmt.args...).Query(func(rows pgx.Rows) (err error) {
		// Each row scans into values of its own, which pgx fills without
		// allocating; a sum points into them unless it is null.
		sums, counts := make([]pgtype.Float8, parts), make([]pgtype.Int8, 3*metrics)
		dest := make([]any, 0, 1+parts+len(counts))
		var key string
		if grouped {
			dest = append(dest, &key)
		}
		for i := range sums {
			dest = append(dest, &sums[i])
		}
		for i := range counts {
			dest = append(dest, &counts[i])
		}
		// A row's sums and counts are cut from blocks shared by rows, not
		// made row by row: a floor's report returns hundreds of rows.
		expect := int(stmt.rows.Load())
		ptrs, vals, nums := newSlab[*float64](expect), newSlab[float64](expect), newSlab[int64](2*expect)
		res.Rows, err = pgx.AppendRows(make([]ask.Row, 0, expect), rows, func(r pgx.CollectableRow) (ask.Row, error) {
			if err := r.Scan(dest...); err != nil {
				return ask.Row{}, err
			}
			row := ask.Row{Key: key, Sums: ptrs.take(parts), Kept: nums.take(metrics), LeftOut: nums.take(metrics)}
			values := vals.take(parts)
			for i, v := range sums {
				if v.Valid {
					values[i] = v.Float64
					row.Sums[i] = &values[i]
				}
			}
			for j := 0; j < metrics; j++ {
				row.Kept[j], row.LeftOut[j] = counts[2*j].Int64, counts[2*j+1].Int64
				res.LeftOut[j] = max(res.LeftOut[j], counts[2*metrics+j].Int64)
			}
			return row, nil
		})
		stmt.rows.Store(int64(len(res.Rows)))
		return err
	})
}

// Coverage reads how far each source is loaded.
func (s *Store) Coverage(ctx context.Context, sources []*catalog.Source) (map[string]ask.Coverage, error) {
	out := map[string]ask.Coverage{}
	err := s.readOnly(ctx, func(b *pgx.Batch) { s.queueCoverage(b, sources, out) })
	return out, err
}

// queueCoverage queues the read of each source's first and last day into
// out.
func (s *Store) queueCoverage(b *pgx.Batch, sources []*catalog.Source, out map[string]ask.Coverage) {
	if len(sources) == 0 {
		return
	}
	stmt, args := s.built.coverage(s.cat, sources)
	b.Queue(stmt, args...).QueryRow(func(row pgx.Row) error {
		// Read as dates, which pgx fills in place, not as pointers to
		// times it would make, with a plan of its own for each.
		days := make([]pgtype.Date, 2*len(sources))
		dest := make([]any, len(days))
		for i := range days {
			dest[i] = &days[i]
		}
		if err := row.Scan(dest...); err != nil {
			return err
		}
		for _, d := range days {
			if d.Valid && d.InfinityModifier != pgtype.Finite {
				return fmt.Errorf("coverage: %s is not a day", d.InfinityModifier)
			}
		}
		for i, src := range sources {
			// A null day leaves the zero time.
			out[src.ID] = ask.Coverage{First: days[2*i].Time, Through: days[2*i+1].Time}
		}
		return nil
	})
}

// Directory reads the roster: teams, agents and their dated histories, and
// the teams' targets, with the roster's stamp (query.DirectoryStatements).
// Given the last stamp (unless), it reads the stamp alone first and, if it
// is unchanged, returns nil: a floor of thousands is then not read again
// into memory every time the engine looks for changes.
func (s *Store) Directory(ctx context.Context, unless string) (*ask.Roster, error) {
	q := query.Directory(s.cat)
	if unless != "" && !s.unstamped.Load() {
		var stamp string
		err := s.readOnly(ctx, func(b *pgx.Batch) {
			b.Queue(q.Stamp).QueryRow(func(r pgx.Row) error { return r.Scan(&stamp) })
		})
		switch {
		case err == nil && stamp == unless:
			return nil, nil
		case err != nil && !s.cannotStamp(err):
			return nil, err
		}
	}
	dir, err := s.roster(ctx, q, !s.unstamped.Load())
	if err != nil && s.cannotStamp(err) {
		dir, err = s.roster(ctx, q, false)
	}
	return dir, err
}

// roster reads the whole roster in one snapshot, with its stamp if stamped.
func (s *Store) roster(ctx context.Context, q query.DirectoryStatements, stamped bool) (*ask.Roster, error) {
	dir := &ask.Roster{}
	err := s.readOnly(ctx, func(b *pgx.Batch) {
		if stamped {
			b.Queue(q.Stamp).QueryRow(func(r pgx.Row) error { return r.Scan(&dir.Stamp) })
		}
		collect(b, q.Teams, &dir.Teams, func(r pgx.CollectableRow, t *ask.Team) error {
			return r.Scan(&t.Key, &t.Name)
		})
		collect(b, q.Agents, &dir.Agents, func(r pgx.CollectableRow, a *ask.Agent) error {
			return r.Scan(&a.Key, &a.Name, &a.Email, &a.Hired, &a.Left)
		})
		collect(b, q.TeamHistory, &dir.Memberships, func(r pgx.CollectableRow, m *ask.Membership) error {
			return r.Scan(&m.Agent, &m.Team, &m.From)
		})
		collect(b, q.FloorHistory, &dir.Floor, func(r pgx.CollectableRow, d *ask.FloorDecision) error {
			return r.Scan(&d.Team, &d.From, &d.CountsAsSales, &d.DecidedBy, &d.Reason)
		})
		if q.Targets != "" {
			collect(b, q.Targets, &dir.Targets, func(r pgx.CollectableRow, t *ask.TargetSet) error {
				return r.Scan(&t.Team, &t.Metric, &t.Kind, &t.Start, &t.Value, &t.SetBy, &t.SetAt, &t.Reason)
			})
		}
	})
	return dir, err
}

// cannotStamp reports whether err says the roster's stamp cannot be worked
// out on this database (no hash function for a column's type, or none for
// records at all), and if so stops stamping: the roster is read whole from
// then on, as it was before stamps, which costs memory, not correctness.
func (s *Store) cannotStamp(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42883" { // undefined_function
		s.unstamped.Store(true)
		return true
	}
	return false
}

// collect queues a query whose rows scan into *out, which holds them in a
// slice of their own size: the roster is kept for as long as it is
// unchanged, and the slice grown row by row has up to a quarter to spare.
func collect[T any](b *pgx.Batch, stmt string, out *[]T, scan func(pgx.CollectableRow, *T) error) {
	b.Queue(stmt).Query(func(rows pgx.Rows) error {
		grown, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (v T, err error) {
			return v, scan(r, &v)
		})
		*out = slices.Clone(grown)
		return err
	})
}

// redact drops a connection string's text from a parse error, which may
// carry a password.
func redact(err error) error {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		return errors.New("invalid connection string")
	}
	return err
}

// slab hands out slices cut from larger blocks: the first for as many
// takes as expected, each next one for twice as many as the one before.
type slab[T any] struct {
	free  []T
	takes int // what the next block is made for
}

// newSlab returns a slab whose first block serves expect takes (at least
// one).
func newSlab[T any](expect int) *slab[T] { return &slab[T]{takes: max(expect, 1)} }

// take returns a zeroed slice of n values, full to its capacity, so that an
// append to it never reaches the next row's.
func (s *slab[T]) take(n int) []T {
	if len(s.free) < n {
		s.free = make([]T, n*s.takes)
		s.takes *= 2
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}
