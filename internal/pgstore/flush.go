package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// This file runs a pipeline whose commits reach the disk while the caller
// goes on: visible at once, durable a moment later, in one round trip.

// flushBarrier is a transaction that writes a record to the write-ahead
// log and waits, as it commits, until the log is on disk up to it, and so
// up to every commit before it. A transactional logical decoding message
// is the smallest such write that touches no table: one record under the
// transaction's own id, at any wal_level.
const flushBarrier = "SELECT pg_catalog.pg_logical_emit_message(true, 'plumbline', '')"

// barrier queues flushBarrier, read only, for every pipeline. It is shared
// by every call at once, so it goes only where nothing writes to a queued
// query: PipelineFlushing's own reading, never pgx's SendBatch.
var barrier = &pgx.QueuedQuery{SQL: flushBarrier}

// FlushFunction is the function the flush barrier runs, which the login
// must be able to execute: setup grants it to the logger, and takes it
// from every other role.
const FlushFunction = "pg_catalog.pg_logical_emit_message(boolean, text, text)"

// PipelineFlushing runs its steps as Pipeline does, in one round trip, but
// returns as soon as they have committed, before the disk has their
// commits: each commits lazily, and behind them, in the same batch, a last
// transaction waits until the write-ahead log holding them is on disk.
// What the steps committed is visible to every session when it returns.
//
// Flushed waits for that flush and reports whether it failed, in which
// case the steps' writes may be lost in a crash; it must be called, once,
// and frees the connection. When PipelineFlushing fails, nothing is left
// to flush and flushed is nil.
//
// The server sends the steps' results when it reaches a flush request
// between them and the last transaction, so that the caller need not wait
// for the disk to learn them: the caller's next round trip (a report's,
// say) and the flush overlap.
func (s *Store) PipelineFlushing(ctx context.Context, steps ...Step) (flushed func() error, err error) {
	conn, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	lazy := make([]Step, len(steps))
	for i, st := range steps {
		st.Tx.Lazy = true
		lazy[i] = st
	}
	b := s.batch(ctx, lazy, true)
	c := conn.Conn()
	queries := append(b.QueuedQueries, barrier)
	kept := keptOn(c.PgConn())
	if err := kept.prepare(ctx, c.PgConn(), queries); err != nil {
		conn.Release()
		return nil, timedOut(err)
	}
	p := c.PgConn().StartPipeline(ctx)
	eqb := &kept.eqb
	for i, q := range queries {
		if i == len(queries)-1 {
			p.SendFlushRequest()
		}
		desc := kept.prepared[q.SQL]
		if err := eqb.Build(c.TypeMap(), desc, q.Arguments); err != nil {
			p.Close()
			conn.Release()
			return nil, err
		}
		// The pipeline keeps the result formats until it reads the
		// result, and the builder reuses them: a copy.
		p.SendQueryStatement(desc, eqb.ParamValues, eqb.ParamFormats, append([]int16(nil), eqb.ResultFormats...))
	}
	if err := p.Sync(); err != nil {
		p.Close()
		conn.Release()
		return nil, err
	}
	// The statements are traced as pgx traces a batch's. (The connection's
	// Config would copy the whole configuration to say which tracer.)
	r := reader{ctx: ctx, tracer: s.tracer, c: c, p: p}
	if r.tracer != nil {
		r.ctx = r.tracer.TraceBatchStart(ctx, c, pgx.TraceBatchStartData{Batch: b})
	}
	for _, q := range b.QueuedQueries {
		if err := r.read(q); err != nil {
			// The server skipped the rest, the flush too, up to the sync.
			p.Close()
			conn.Release()
			return nil, r.done(timedOut(err))
		}
	}
	return func() error {
		defer conn.Release()
		err := r.read(barrier)
		if err == nil {
			var res any
			res, err = p.GetResults()
			if _, ok := res.(*pgconn.PipelineSync); err == nil && !ok {
				err = fmt.Errorf("flush: expected the end of the batch, got %T", res)
			}
		}
		return r.done(errors.Join(err, p.Close()))
	}, nil
}

// reader reads the results of a pipeline's statements, tracing them as
// pgx traces a batch's when the connection traces.
type reader struct {
	ctx    context.Context
	tracer pgx.BatchTracer
	c      *pgx.Conn
	p      *pgconn.Pipeline
}

// read reads q's result.
func (r reader) read(q *pgx.QueuedQuery) error {
	tag, err := result(r.p, r.c.TypeMap(), q)
	if r.tracer != nil {
		r.tracer.TraceBatchQuery(r.ctx, r.c, pgx.TraceBatchQueryData{SQL: q.SQL, Args: q.Arguments, CommandTag: tag, Err: err})
	}
	return err
}

// done ends the trace of the batch with its error, and returns it.
func (r reader) done(err error) error {
	if r.tracer != nil {
		r.tracer.TraceBatchEnd(r.ctx, r.c, pgx.TraceBatchEndData{Err: err})
	}
	return err
}

// keptKey keys, in a connection's custom data, what PipelineFlushing keeps
// with the connection, for as long as it lives.
const keptKey = "plumbline.pipeline"

// kept is what PipelineFlushing keeps with a connection: the descriptions
// of the statements it has prepared there, by their text, and the builder
// of their parameters, whose buffers each call on the connection reuses.
type kept struct {
	prepared map[string]*pgconn.StatementDescription
	eqb      pgx.ExtendedQueryBuilder
}

// keptOn returns what is kept with a connection.
func keptOn(c *pgconn.PgConn) *kept {
	k, _ := c.CustomData()[keptKey].(*kept)
	if k == nil {
		k = &kept{prepared: map[string]*pgconn.StatementDescription{}}
		c.CustomData()[keptKey] = k
	}
	return k
}

// prepare prepares, on the connection k is kept with, the queries'
// statements that it has not prepared before, all in one round trip, as
// pgx prepares a batch's.
func (k *kept) prepare(ctx context.Context, c *pgconn.PgConn, queries []*pgx.QueuedQuery) error {
	var missing []string
	for _, q := range queries {
		if _, ok := k.prepared[q.SQL]; !ok && !slices.Contains(missing, q.SQL) {
			missing = append(missing, q.SQL)
		}
	}
	if len(missing) > 0 {
		names := make([]string, len(missing))
		p := c.StartPipeline(ctx)
		for i, sql := range missing {
			digest := sha256.Sum256([]byte(sql))
			names[i] = "plumbline_" + hex.EncodeToString(digest[:20])
			p.SendPrepare(names[i], sql, nil)
		}
		err := p.Sync()
		for i, sql := range missing {
			if err != nil {
				break
			}
			var res any
			if res, err = p.GetResults(); err != nil {
				break
			}
			sd, ok := res.(*pgconn.StatementDescription)
			if !ok {
				err = fmt.Errorf("expected the description of %q, got %T", sql, res)
				break
			}
			// Kept as each comes, so that one prepared before a failure
			// is not prepared again. The pipeline leaves out what it was
			// given: its name and text.
			sd.Name, sd.SQL = names[i], sql
			k.prepared[sql] = sd
		}
		if err := errors.Join(err, p.Close()); err != nil {
			return err
		}
	}
	return nil
}

// result reads a queued query's result from a pipeline, handing it to the
// query's own function if it has one.
func result(p *pgconn.Pipeline, m *pgtype.Map, q *pgx.QueuedQuery) (pgconn.CommandTag, error) {
	res, err := p.GetResults()
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		return pgconn.CommandTag{}, fmt.Errorf("expected the result of %q, got %T", q.SQL, res)
	}
	if q.Fn != nil {
		err = q.Fn(&pipelined{rr: rr, m: m})
	}
	tag, cerr := rr.Close()
	if err == nil {
		err = cerr
	}
	return tag, err
}

// pipelined is one query's result as pgx.BatchResults, for the function a
// query was queued with.
type pipelined struct {
	rr *pgconn.ResultReader
	m  *pgtype.Map
}

func (r *pipelined) Exec() (pgconn.CommandTag, error) { return r.rr.Close() }

func (r *pipelined) Query() (pgx.Rows, error) { return pgx.RowsFromResultReader(r.m, r.rr), nil }

func (r *pipelined) QueryRow() pgx.Row {
	rows, _ := r.Query()
	return firstRow{rows}
}

func (r *pipelined) Close() error {
	_, err := r.rr.Close()
	return err
}

func (r *pipelined) Tx() pgx.Tx { return nil }

// firstRow is the first row of a result as pgx.Row.
type firstRow struct{ rows pgx.Rows }

func (r firstRow) Scan(dest ...any) error {
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}
