package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// This file asks PostgreSQL what a statement would return before running
// anything built on it: the analyst's door orders the pages of a SELECT *
// by each of its columns, which only the database can count.

// BatchDescribing runs one transaction as Batch does, in two round trips.
// The first sets it up, runs the statements setup queues, and has
// PostgreSQL describe stmt there (as the transaction's role, with its
// settings), as it would prepare it, without running it. The second runs
// the statements queue adds given that description, and ends the
// transaction. If queue fails, nothing more is sent and its error is
// returned.
func (s *Store) BatchDescribing(ctx context.Context, tx Tx, setup func(*pgx.Batch), stmt string,
	queue func(*pgconn.StatementDescription, *pgx.Batch) error) error {
	return s.use(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		first := s.batch(ctx, []Step{{Tx: tx, Queue: setup}}, true)
		// An explicit transaction's last statement ends it: the second
		// round trip's.
		end := first.QueuedQueries[len(first.QueuedQueries)-1]
		first.QueuedQueries = first.QueuedQueries[:len(first.QueuedQueries)-1]
		desc, err := describe(ctx, conn.Conn(), first.QueuedQueries, stmt)
		if err != nil {
			return err
		}
		then := &pgx.Batch{}
		if err := queue(desc, then); err != nil {
			return err // the pool drops the connection, in its transaction
		}
		then.QueuedQueries = append(then.QueuedQueries, end)
		return conn.SendBatch(ctx, then).Close()
	})
}

// describe runs queries and then describes stmt, in one round trip. The
// queries are the store's own setup, whose arguments go as text for the
// server to type, so that none waits on a round trip of its own to be
// prepared.
func describe(ctx context.Context, c *pgx.Conn, queries []*pgx.QueuedQuery, stmt string) (*pgconn.StatementDescription, error) {
	p := c.PgConn().StartPipeline(ctx)
	var eqb pgx.ExtendedQueryBuilder
	for _, q := range queries {
		if err := eqb.Build(c.TypeMap(), nil, q.Arguments); err != nil {
			return nil, errors.Join(err, p.Close())
		}
		p.SendQueryParams(q.SQL, eqb.ParamValues, nil, eqb.ParamFormats, eqb.ResultFormats)
	}
	p.SendPrepare("", stmt, nil)
	if err := p.Sync(); err != nil {
		return nil, errors.Join(err, p.Close())
	}
	for _, q := range queries {
		if _, err := result(p, c.TypeMap(), q); err != nil {
			return nil, errors.Join(err, p.Close())
		}
	}
	res, err := p.GetResults()
	if err != nil {
		return nil, errors.Join(err, p.Close())
	}
	desc, ok := res.(*pgconn.StatementDescription)
	if !ok {
		return nil, errors.Join(fmt.Errorf("expected a statement's description, got %T", res), p.Close())
	}
	return desc, p.Close()
}

// Orderable reports, for each type, whether PostgreSQL can order values of
// it (ORDER BY needs a default B-tree operator class: json, xml and point
// have none, nor has an array of them): it prepares ORDER BY over a value
// of each type, all in one round trip, outside any transaction and reading
// no relation.
func (s *Store) Orderable(ctx context.Context, types []uint32) ([]bool, error) {
	out := make([]bool, len(types))
	err := s.use(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		p := conn.Conn().PgConn().StartPipeline(ctx)
		for _, oid := range types {
			// Each its own implicit transaction, so that one refused
			// leaves the others to be answered.
			p.SendPrepare("", "SELECT $1 ORDER BY 1", []uint32{oid})
			p.SendPipelineSync()
		}
		if err := p.Flush(); err != nil {
			return errors.Join(err, p.Close())
		}
		for i := range types {
			res, err := p.GetResults()
			var pgErr *pgconn.PgError
			switch {
			case errors.As(err, &pgErr) && pgErr.Code == "42883": // undefined_function: no ordering operator
			case err != nil:
				return errors.Join(err, p.Close())
			default:
				_, out[i] = res.(*pgconn.StatementDescription)
			}
			if _, err := p.GetResults(); err != nil { // the sync
				return errors.Join(err, p.Close())
			}
		}
		return p.Close()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
