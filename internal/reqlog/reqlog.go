package reqlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"plumbline/internal/limits"
	"plumbline/internal/pgstore"
	"plumbline/internal/telemetry"
	"plumbline/reports/ask"
)

// Options tune a Log. The zero value writes as the login itself, with no
// limit.
type Options struct {
	// Role is the role that writes the log (SET LOCAL ROLE), the logger.
	// If empty, the login writes it.
	Role string
	// PerMinute is how many calls a person may make in any minute, across
	// every server sharing the database (package limits). If zero, there
	// is no limit.
	PerMinute int
	// Logger receives failures to record an outcome. If nil,
	// slog.Default().
	Logger *slog.Logger
	// Metrics, if set, count the writes that fail (package telemetry).
	Metrics *telemetry.Metrics
}

// Log is the request log in the store's database. It is safe for
// concurrent use; Close it to write the outcomes still queued.
type Log struct {
	st   *pgstore.Store
	opts Options

	mu      sync.Mutex
	pending []outcome
	dropped int
	closed  bool
	wake    chan struct{}
	stopped chan struct{}

	writing sync.Mutex // one batch of outcomes at a time

	amu       sync.Mutex
	queued    []*admission // calls waiting for a batch of admissions
	admitting int          // batches of admissions on their way
}

// outcome is what Finish queues for the writer.
type outcome struct {
	id, code string
	reach    string // empty: not resolved
	ms       float64
	rows     int32
}

// Limits of the outcome writer.
const (
	// maxPending is how many outcomes may wait for the writer; past it,
	// outcomes are dropped (and counted in the server's log) rather than
	// held in memory without bound while the database is away.
	maxPending = 100_000
	// writeEvery is how long the writer lets outcomes gather before it
	// writes them in one statement.
	writeEvery = 100 * time.Millisecond
)

var _ ask.Recorder = (*Log)(nil)

// New returns the request log of the store's database and starts its
// outcome writer.
func New(st *pgstore.Store, opts *Options) *Log {
	l := &Log{st: st, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	if opts != nil {
		l.opts = *opts
	}
	if l.opts.Logger == nil {
		l.opts.Logger = slog.Default()
	}
	go l.writer()
	return l
}

// A Check is a condition a call must meet that is read in the same round
// trip as its admission, such as the bearer token's row: its Reader reads
// it, with the other checks of the admission's batch that share that
// reader, in the admission's first transaction, and Err, read after the
// batch has run, is nil when it held.
type Check interface {
	Reader() CheckReader
	Err() error
}

// A CheckReader reads checks: Queue adds the statements that read the
// checks given, all its own, to b. They may change the role; the log's own
// statements set theirs again. Checks are grouped by their reader, which
// must therefore be comparable.
type CheckReader interface {
	Queue(b *pgx.Batch, checks []Check)
}

// QueueChecks queues the reads of checks, one reader at a time, and then
// sets the transaction's role back to role.
func QueueChecks(b *pgx.Batch, checks []Check, role string) {
	var readers []CheckReader
	byReader := map[CheckReader][]Check{}
	for _, c := range checks {
		if c == nil {
			continue
		}
		r := c.Reader()
		if _, seen := byReader[r]; !seen {
			readers = append(readers, r)
		}
		byReader[r] = append(byReader[r], c)
	}
	for _, r := range readers {
		r.Queue(b, byReader[r])
	}
	if len(readers) > 0 {
		pgstore.QueueRole(b, role)
	}
}

type checkKey struct{}

// WithCheck returns a context whose call is admitted only if c holds.
func WithCheck(ctx context.Context, c Check) context.Context {
	return context.WithValue(ctx, checkKey{}, c)
}

// CheckFrom returns the Check a context carries, or nil: whatever puts a
// call on record before it runs must read it in the same round trip and
// refuse the call, as unauthenticated, when it does not hold.
func CheckFrom(ctx context.Context) Check {
	c, _ := ctx.Value(checkKey{}).(Check)
	return c
}

const insert = `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, software)
SELECT id, person, client, tool, args, NULLIF(software, '')
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::text[]) AS c(id, person, client, tool, args, software)`

// Limits of the admissions' group commit.
const (
	// maxAdmitting is how many batches of admissions may be on their way
	// to the database at once.
	maxAdmitting = 2
	// maxBatch is the most calls one batch admits.
	maxBatch = 256
)

// admission is one call waiting to be put on record.
type admission struct {
	rec   *ask.Record
	check Check
	wait  time.Duration
	err   error
	flush *flush // the flush to disk of its batch's commits
	done  chan struct{}
}

// flush is a batch's wait for the disk, shared by its calls.
type flush struct {
	done chan struct{}
	err  error
}

// await starts waiting for a batch's commits to reach the disk.
func await(flushed func() error) *flush {
	f := &flush{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.err = flushed()
	}()
	return f
}

// durable waits until the flush is done, and says whether it failed.
func (f *flush) durable() error {
	<-f.done
	if f.err != nil {
		return fmt.Errorf("%w: %w", errNotDurable, f.err)
	}
	return nil
}

// errNotDurable is what a call hears when its row may not have reached the
// disk.
var errNotDurable = errors.New("the request log could not flush the call's row to disk")

// Admit puts a call on record and holds its caller to the limit, in one
// round trip: one transaction writes the row (after reading the context's
// Check, if any), the next checks the limit against the log as committed.
// It returns how long the caller must wait when over the limit. When the
// Check does not hold, the error wraps ask.ErrUnauthenticated; the row
// stays, as the record of a refused call.
//
// Admit returns once the row is committed, without waiting for the disk,
// which gets it in the same round trip a moment later: r.Durable waits for
// that, and the call's answer must wait for it in turn.
//
// Calls admitted at the same moment share that round trip and its commit
// (a group commit): a call that finds maxAdmitting batches on their way
// waits for the next, which takes every call that waited meanwhile. A call
// alone goes at once.
func (l *Log) Admit(ctx context.Context, r *ask.Record) (time.Duration, error) {
	defer telemetry.Since(ctx, telemetry.StageRequestLog, time.Now())
	ctx, span := telemetry.Span(ctx, "request_log")
	defer span.End()
	a := &admission{rec: r, check: CheckFrom(ctx), done: make(chan struct{})}
	l.amu.Lock()
	l.queued = append(l.queued, a)
	lead := l.admitting < maxAdmitting
	if lead {
		l.admitting++
	}
	l.amu.Unlock()
	if lead {
		l.admitQueued(context.WithoutCancel(ctx))
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		// The batch goes on without this call, which may yet be put on
		// record, never answered.
		return 0, ctx.Err()
	}
	if a.err != nil {
		return 0, a.err
	}
	r.Durable = func() error {
		// What is left of the flush once the report is done is a stage
		// of its own.
		defer telemetry.Since(ctx, telemetry.StageLogFlush, time.Now())
		err := a.flush.durable()
		if err != nil {
			// The call is refused, as when its row could not be written.
			l.opts.Metrics.LogFailed(telemetry.LogWriteCall, 1)
		}
		return err
	}
	if a.check != nil {
		if err := a.check.Err(); err != nil {
			return 0, fmt.Errorf("%w: %w", ask.ErrUnauthenticated, err)
		}
	}
	return a.wait, nil
}

// admitQueued admits a batch of the calls queued, this goroutine's own
// among them, and returns once they have heard back. The batch keeps its
// place among the batches on their way until its commits are on disk, so
// that calls arriving meanwhile gather for the next batch, as they would if
// the commit waited for the disk; then, if calls are queued, another
// goroutine admits them.
func (l *Log) admitQueued(ctx context.Context) {
	l.amu.Lock()
	n := min(len(l.queued), maxBatch)
	batch := slices.Clone(l.queued[:n])
	l.queued = slices.Delete(l.queued, 0, n)
	l.amu.Unlock()
	// The other batch on its way may have taken this goroutine's own.
	if len(batch) > 0 {
		l.admit(ctx, batch)
	}
	go func() {
		for _, a := range batch {
			if a.flush != nil {
				<-a.flush.done
			}
		}
		l.amu.Lock()
		more := len(l.queued) > 0
		if !more {
			l.admitting--
		}
		l.amu.Unlock()
		if more {
			l.admitQueued(context.Background())
		}
	}()
}

// errAdmitting is what the calls of a batch hear when admitting it went
// wrong in plumbline itself (the server's log has the detail).
var errAdmitting = errors.New("the request log could not admit the call")

// admit puts a batch of calls on record, checks them against the limit and
// reads their checks, in one round trip, and tells each how it went. When
// one call's row spoils the batch (its arguments are data PostgreSQL
// refuses), nothing of the batch was written: its calls are admitted again
// one at a time, so that only that call is refused.
func (l *Log) admit(ctx context.Context, batch []*admission) {
	waits, errs := make([]time.Duration, len(batch)), make([]error, len(batch))
	defer func() {
		// Whatever happens, every call hears back.
		if p := recover(); p != nil {
			l.opts.Logger.Error("request log: admitting calls failed", "calls", len(batch), "panic", p)
			for i := range errs {
				errs[i] = errAdmitting
			}
		}
		failed := 0
		for i, a := range batch {
			a.wait, a.err = waits[i], errs[i]
			if errs[i] != nil && !errors.Is(errs[i], ask.ErrBusy) {
				failed++
			}
			close(a.done)
		}
		if failed > 0 {
			l.opts.Metrics.LogFailed(telemetry.LogWriteCall, failed)
		}
	}()
	f, err := l.send(ctx, batch, waits)
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && len(batch) > 1 && strings.HasPrefix(pgErr.Code, "22") { // data exception
		for i, a := range batch {
			a.flush, errs[i] = l.send(ctx, batch[i:i+1], waits[i:i+1])
		}
		return
	}
	for i, a := range batch {
		a.flush, errs[i] = f, err
	}
}

// send admits a batch of calls in one round trip; waits[i] is then how
// long the caller of batch[i] must wait. Their rows are committed when it
// returns, and on disk once the flush is done.
func (l *Log) send(ctx context.Context, batch []*admission, waits []time.Duration) (*flush, error) {
	// The insert's six columns, cut from one block, as pgx's arrays of
	// one dimension, which it encodes as they are, not wrapped first; the
	// insert takes them by pointer, which an argument holds as it is, not
	// copied to a box of its own.
	n := len(batch)
	cols, arrays := make(pgtype.FlatArray[string], 6*n), new([6]pgtype.FlatArray[string])
	for j := range arrays {
		arrays[j] = cols[j*n : (j+1)*n]
	}
	ids, persons, clients, tools, args, software := arrays[0], arrays[1], arrays[2], arrays[3], arrays[4], arrays[5]
	var checks []Check
	for i, a := range batch {
		r := a.rec
		ids[i], persons[i], clients[i], tools[i], args[i] = r.ID, r.Caller.Person, r.Caller.Client, r.Tool, string(r.Arguments)
		software[i] = r.Caller.Software
		if a.check != nil {
			checks = append(checks, a.check)
		}
	}
	steps := []pgstore.Step{{Tx: pgstore.Tx{Role: l.opts.Role, Write: true, Generic: true}, Queue: func(b *pgx.Batch) {
		QueueChecks(b, checks, l.opts.Role)
		b.Queue(insert, &arrays[0], &arrays[1], &arrays[2], &arrays[3], &arrays[4], &arrays[5])
	}}}
	if l.opts.PerMinute > 0 {
		steps = append(steps, pgstore.Step{Tx: pgstore.Tx{Role: l.opts.Role, Write: true, Generic: true}, Queue: func(b *pgx.Batch) {
			recs := make([]*ask.Record, n)
			for i, a := range batch {
				recs[i] = a.rec
			}
			limits.Queue(b, recs, l.opts.PerMinute, waits)
		}})
	}
	// The database session names the batch's caller, when it has one.
	caller := ask.Caller{}
	if len(batch) == 1 {
		caller = batch[0].rec.Caller
	}
	flushed, err := l.st.PipelineFlushing(ask.WithCaller(ctx, caller), steps...)
	if err != nil {
		return nil, err
	}
	return await(flushed), nil
}

// Finish queues a call's outcome, duration and row count for the writer;
// it never waits for the database.
func (l *Log) Finish(_ context.Context, r *ask.Record) {
	o := outcome{id: r.ID, code: r.Outcome, reach: r.Reach, ms: float64(r.Duration.Microseconds()) / 1000, rows: int32(r.Rows)}
	l.mu.Lock()
	closed := l.closed
	if !closed {
		if len(l.pending) < maxPending {
			l.pending = append(l.pending, o)
		} else {
			l.dropped++
		}
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	l.mu.Unlock()
	if closed {
		// After Close there is no writer: write it now.
		l.write(context.Background(), []outcome{o})
	}
}

// writer writes queued outcomes until Close: once one is queued, it waits
// writeEvery for others to join it, then writes them all.
func (l *Log) writer() {
	defer close(l.stopped)
	for range l.wake {
		time.Sleep(writeEvery)
		l.Flush(context.Background())
	}
}

// Flush writes every outcome queued so far, and returns once they are
// written (or failed, which is logged).
func (l *Log) Flush(ctx context.Context) {
	l.writing.Lock()
	defer l.writing.Unlock()
	l.mu.Lock()
	batch, dropped := l.pending, l.dropped
	l.pending, l.dropped = nil, 0
	l.mu.Unlock()
	if dropped > 0 {
		l.opts.Metrics.LogFailed(telemetry.LogDropOutcome, dropped)
		l.opts.Logger.Error("request log: outcomes dropped while the database was not keeping up", "dropped", dropped)
	}
	if len(batch) > 0 {
		l.write(ctx, batch)
	}
}

// Close stops the writer and writes the outcomes still queued.
func (l *Log) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	close(l.wake)
	l.mu.Unlock()
	<-l.stopped
	l.Flush(context.Background())
}

const insertOutcomes = `INSERT INTO plumbline.request_outcome (request_id, outcome, duration_ms, row_count, reach)
SELECT id, outcome, ms, row_count, NULLIF(reach, '')
FROM unnest($1::text[], $2::text[], $3::float8[], $4::int[], $5::text[]) AS o(id, outcome, ms, row_count, reach)`

// write records outcomes in one statement. Their calls' rows are already
// on record; the outcomes need not wait for a disk flush.
func (l *Log) write(ctx context.Context, batch []outcome) {
	ids, codes, ms, rows := make([]string, len(batch)), make([]string, len(batch)), make([]float64, len(batch)), make([]int32, len(batch))
	reaches := make([]string, len(batch))
	for i, o := range batch {
		ids[i], codes[i], ms[i], rows[i], reaches[i] = o.id, o.code, o.ms, o.rows, o.reach
	}
	err := l.st.Batch(ctx, pgstore.Tx{Role: l.opts.Role, Write: true, Lazy: true}, func(b *pgx.Batch) {
		b.Queue(insertOutcomes, ids, codes, ms, rows, reaches)
	})
	if err != nil {
		l.opts.Metrics.LogFailed(telemetry.LogWriteOutcome, len(batch))
		l.opts.Logger.Error("request log: cannot record outcomes", "calls", len(batch), "err", err)
	}
}
