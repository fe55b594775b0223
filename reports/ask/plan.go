package ask

import (
	"context"
	"errors"
	"slices"
	"time"

	"plumbline/catalog"
)

// Plan is a resolved report query: the hand-off from the engine, which
// decides what to sum, to the store, which builds and runs the SQL.
type Plan struct {
	Catalog *catalog.Catalog
	Metrics []*catalog.Metric
	Scope   Scope
	Period  Period
	// Today is the floor's current day: how far live sources run.
	Today   time.Time
	GroupBy string // a catalog grouping, or empty for one total row
	// Ranked asks for every group: the engine ranks them itself. Otherwise
	// rows come in order of their key, at most Limit of them.
	Ranked bool
	Limit  int
}

// Parts returns the summed parts of every metric, in order: the columns a
// store returns for each row.
func (p *Plan) Parts() []catalog.Part {
	out := make([]catalog.Part, 0, p.NumParts())
	for _, m := range p.Metrics {
		out = append(out, m.Parts()...)
	}
	return out
}

// NumParts is how many summed parts Parts returns: the length of a row's
// Sums.
func (p *Plan) NumParts() int {
	n := 0
	for _, m := range p.Metrics {
		n += len(m.Parts())
	}
	return n
}

// Span says where metric i's summed parts sit in a row's Sums: n of them
// from at.
func (p *Plan) Span(i int) (at, n int) {
	for _, m := range p.Metrics[:i] {
		at += len(m.Parts())
	}
	return at, len(p.Metrics[i].Parts())
}

// Sources returns the distinct sources the plan reads, in order of first use.
func (p *Plan) Sources() []*catalog.Source {
	var out []*catalog.Source
	for _, m := range p.Metrics {
		for _, part := range m.Parts() {
			if !slices.Contains(out, part.Source) {
				out = append(out, part.Source)
			}
		}
	}
	return out
}

// Result is what a store returns for a plan.
type Result struct {
	Rows []Row
	// LeftOut holds, per metric, the agent-days left out of its figures
	// (see catalog.Metric.LeaveOut) over every group, returned or not.
	LeftOut []int64
	// Coverage holds, per source id, how far the source is loaded, read in
	// the same snapshot as the rows.
	Coverage map[string]Coverage
}

// Row is one group's sums.
type Row struct {
	Key  string     // team key, agent key or date; empty for the total row
	Sums []*float64 // one per part of Plan.Parts; nil when no row had a value
	// Kept and LeftOut count, per metric, the agent-days summed into its
	// figures and those left out because a part was unknown.
	Kept, LeftOut []int64
}

// Coverage is how far a source is loaded: the first and the last day of its
// data. A nightly source runs through the newest day a finished load
// covered (its watermark); a day inside that with no rows had no activity.
// A live source's Through is zero: it runs up to now. Zero First means the
// source holds nothing.
type Coverage struct {
	First, Through time.Time
}

// Store is the data the engine reads. internal/pgstore implements it over
// PostgreSQL; every method runs read-only.
type Store interface {
	// Directory reads the roster: teams, agents and their dated histories,
	// with its stamp. Given the stamp of the roster read last (unless), it
	// returns nil if the roster's stamp is still that: the roster is
	// unchanged, and was not read again.
	Directory(ctx context.Context, unless string) (*Roster, error)
	// Run runs plans in one snapshot and returns each plan's rows, in the
	// order of the plans.
	Run(ctx context.Context, plans ...*Plan) ([]*Result, error)
	// Coverage reads how far each source is loaded.
	Coverage(ctx context.Context, sources []*catalog.Source) (map[string]Coverage, error)
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
}

// Errors a Store returns for faults the caller should hear about by name.
var (
	// ErrBusy means no database connection came free in time.
	ErrBusy = errors.New("no database connection came free in time")
	// ErrTimeout means a query ran past the statement timeout.
	ErrTimeout = errors.New("the query ran past the statement timeout")
	// ErrUnauthenticated means the credential the call came with no
	// longer holds (a token revoked or expired since it was last seen).
	ErrUnauthenticated = errors.New("the call's credential no longer holds")
)
