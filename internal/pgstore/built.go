package pgstore

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"plumbline/catalog"
	"plumbline/internal/query"
	"plumbline/reports/ask"
)

// statements remembers the SQL and arguments query.Build made of each plan
// run before, by the plan's every field: building is a pure function of
// the plan, and the largest share of a call's allocations when done anew.
// Calls that ask the same question (the same scope, period, metrics and
// grouping) on the same day get the same plan.
type statements struct {
	mu         sync.Mutex
	byID       map[string]builtStatement
	coverageOf map[string]builtStatement // by the sources' ids, in order
}

type builtStatement struct {
	sql  string
	args []any // never changed once built: pgx only reads them
	// rows is how many rows the statement returned when it last ran: the
	// room to make for its rows the next time, which otherwise grow by
	// copying (a floor's report by team returns a row a team).
	rows *atomic.Int64
}

// maxStatements bounds the memory statements holds; past it, it starts
// afresh.
const maxStatements = 4096

func (s *statements) build(p *ask.Plan) (builtStatement, error) {
	var buf [512]byte
	key := planKey(buf[:0], p)
	s.mu.Lock()
	b, ok := s.byID[string(key)]
	s.mu.Unlock()
	if ok {
		return b, nil
	}
	sql, args, err := query.Build(p)
	if err != nil {
		return builtStatement{}, err
	}
	b = builtStatement{sql: sql, args: args, rows: new(atomic.Int64)}
	s.mu.Lock()
	if s.byID == nil || len(s.byID) >= maxStatements {
		s.byID = map[string]builtStatement{}
	}
	s.byID[string(key)] = b
	s.mu.Unlock()
	return b, nil
}

// coverage returns the statement that reads the coverage of sources,
// built once for each list of them: a catalogue has a few sources, and
// its reports read a few lists of them.
func (s *statements) coverage(cat *catalog.Catalog, sources []*catalog.Source) (string, []any) {
	var buf [64]byte
	key := buf[:0]
	for _, src := range sources {
		key = append(append(key, src.ID...), 0)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.coverageOf[string(key)]
	if !ok {
		if s.coverageOf == nil {
			s.coverageOf = map[string]builtStatement{}
		}
		b.sql, b.args = query.Coverage(cat, sources)
		s.coverageOf[string(key)] = b
	}
	return b.sql, b.args
}

// planKey appends to key a name of the plan by every field that
// query.Build reads: when ask.Plan gains a field, this must name it too (a
// test checks the fields it knows).
func planKey(key []byte, p *ask.Plan) []byte {
	key = append(key, p.Catalog.Version()...)
	for _, m := range p.Metrics {
		key = append(append(key, "|m:"...), m.ID...)
	}
	key = fmt.Appendf(key, "|s:%#v", p.Scope) // every field, those to come too: Scope holds only words and flags
	key = p.Period.Start.AppendFormat(append(key, "|p:"...), time.RFC3339Nano)
	key = p.Period.End.AppendFormat(append(key, '~'), time.RFC3339Nano)
	key = append(append(append(key, ':'), p.Period.Named...), ':')
	key = strconv.AppendBool(key, p.Period.Clipped)
	key = strconv.AppendBool(append(key, ':'), p.Period.Ongoing)
	key = p.Period.AskedEnd.AppendFormat(append(key, ':'), time.RFC3339Nano)
	key = p.Today.AppendFormat(append(key, "|t:"...), time.RFC3339Nano)
	key = append(append(key, "|g:"...), p.GroupBy...)
	key = strconv.AppendBool(append(key, "|r:"...), p.Ranked)
	return strconv.AppendInt(append(key, "|l:"...), int64(p.Limit), 10)
}
