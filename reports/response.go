package reports

import (
	"plumbline/catalog"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/directory"
)

// This file holds the parts of an answer that read the directory (package
// answer holds the rest of the answers' shapes): the candidates a name
// matched, who was asked about, and the cells that name a row's group.

// CandidatesAnswer lists the people or teams a name matched, and no figures.
type CandidatesAnswer struct {
	RequestID      string                `json:"request_id"`
	Argument       string                `json:"argument"`
	Candidates     []directory.Candidate `json:"candidates"`
	Notes          []string              `json:"notes"`
	CatalogVersion string                `json:"catalog_version"`
}

func whoEcho(s ask.Scope, dir *directory.Directory) *answer.Who {
	w := &answer.Who{Kind: s.Kind, Key: s.Key, Name: s.Name}
	if t, ok := dir.Team(s.Team); ok && s.Kind == ask.ScopeAgent {
		w.Team = t.Name
	}
	return w
}

// appendRow appends to out one result row of a period rendered under
// answer.Columns.
func appendRow(out []any, groupBy string, r ask.Row, metrics []*catalog.Metric, dir *directory.Directory, p ask.Period) []any {
	out = appendKeyCells(out, groupBy, r, dir, p)
	i := 0
	for _, m := range metrics {
		n := len(m.Parts())
		out = answer.AppendCells(out, m, r.Sums[i:i+n])
		i += n
	}
	return out
}

// appendKeyCells appends to out the cells under answer.KeyColumns.
func appendKeyCells(out []any, groupBy string, r ask.Row, dir *directory.Directory, p ask.Period) []any {
	switch groupBy {
	case catalog.GroupTeam:
		t, _ := dir.Team(r.Key)
		return append(out, r.Key, answer.Nullable(t.Name))
	case catalog.GroupAgent:
		a, _ := dir.Agent(r.Key)
		return append(out, r.Key, answer.Nullable(a.Name))
	case catalog.GroupDay:
		return append(out, r.Key)
	case catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
		return append(out, r.Key, calendar.BucketDays(groupBy, r.Key, p))
	}
	return out
}
