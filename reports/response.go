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

// rowFor renders one result row of a period under answer.Columns.
func rowFor(groupBy string, r ask.Row, metrics []*catalog.Metric, dir *directory.Directory, p ask.Period) []any {
	out := keyCells(groupBy, r, dir, p)
	i := 0
	for _, m := range metrics {
		n := len(m.Parts())
		out = append(out, answer.Cells(m, r.Sums[i:i+n])...)
		i += n
	}
	return out
}

// keyCells renders the cells under answer.KeyColumns.
func keyCells(groupBy string, r ask.Row, dir *directory.Directory, p ask.Period) []any {
	switch groupBy {
	case catalog.GroupTeam:
		t, _ := dir.Team(r.Key)
		return []any{r.Key, answer.Nullable(t.Name)}
	case catalog.GroupAgent:
		a, _ := dir.Agent(r.Key)
		return []any{r.Key, answer.Nullable(a.Name)}
	case catalog.GroupDay:
		return []any{r.Key}
	case catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
		return []any{r.Key, calendar.BucketDays(groupBy, r.Key, p)}
	}
	return nil
}
