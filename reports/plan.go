package reports

import (
	"context"
	"time"

	"plumbline/catalog"
)

// Plan is a resolved report query: the hand-off from this package, which
// decides what to sum, to the store, which builds and runs the SQL.
type Plan struct {
	Catalog *catalog.Catalog
	Metrics []*catalog.Metric
	Scope   Scope
	Period  Period
	GroupBy string   // a catalog grouping, or empty for one total row
	Sort    *SortArg // nil: rows in group order
	Limit   int      // the most rows to return
}

// Parts returns the summed parts of every metric, in order: the columns a
// store returns for each row.
func (p *Plan) Parts() []catalog.Part {
	var out []catalog.Part
	for _, m := range p.Metrics {
		out = append(out, m.Parts()...)
	}
	return out
}

// Sources returns the distinct sources the plan reads, in order of first use.
func (p *Plan) Sources() []*catalog.Source {
	var out []*catalog.Source
	seen := map[*catalog.Source]bool{}
	for _, part := range p.Parts() {
		if !seen[part.Source] {
			seen[part.Source] = true
			out = append(out, part.Source)
		}
	}
	return out
}

// Result is what a store returns for a plan.
type Result struct {
	Rows []Row
	// Newest holds, per source id, the newest day the source has rows for,
	// read in the same snapshot as the rows. A source with no rows is absent.
	Newest map[string]time.Time
}

// Row is one group's sums.
type Row struct {
	Key  string     // team key, agent key or date; empty for the total row
	Sums []*float64 // one per part of Plan.Parts; nil when no row had a value
}

// Store is the data the engine reads. internal/store implements it over
// PostgreSQL; every method runs read-only.
type Store interface {
	// Directory reads the roster: teams, agents and their dated histories.
	Directory(ctx context.Context) (*Directory, error)
	// Run runs plans in one snapshot and returns each plan's rows, at most
	// its Limit of them, in the order of the plans.
	Run(ctx context.Context, plans ...*Plan) ([]*Result, error)
	// Newest returns the newest day each source has rows for.
	Newest(ctx context.Context, sources []*catalog.Source) (map[string]time.Time, error)
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
}
