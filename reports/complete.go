package reports

import (
	"context"
	"slices"
	"strings"

	"plumbline/reports/directory"
)

// Arguments Complete offers values for.
const (
	CompleteMetric = "metric" // a metric id of the catalogue
	CompleteTeam   = "team"   // a team key of the directory
)

// Complete returns the values an argument may take that begin with what a
// person has typed so far, for clients that complete as they type:
// CompleteMetric offers the catalogue's metric ids (matched by id, ignoring
// case), CompleteTeam the directory's team keys (matched by key, or by name
// as names are matched in who.team). Values come sorted, at most max of
// them; total counts them all. Any other argument has no values. Nothing is
// read but the catalogue and the directory, and typed is never echoed.
func (e *Engine) Complete(ctx context.Context, argument, typed string, max int) (values []string, total int, err error) {
	switch argument {
	case CompleteMetric:
		for _, m := range e.cat.Metrics() {
			if hasPrefixFold(m.ID, typed) {
				values = append(values, m.ID)
			}
		}
	case CompleteTeam:
		dir, err := e.directory(ctx, e.opts.Now())
		if err != nil {
			return nil, 0, err
		}
		for _, t := range dir.Teams {
			if hasPrefixFold(t.Key, typed) || directory.NameMatches(typed, t.Name) {
				values = append(values, t.Key)
			}
		}
	}
	slices.Sort(values)
	total = len(values)
	if total > max {
		values = values[:max]
	}
	return values, total, nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
