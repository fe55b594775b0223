package docsite

import (
	"slices"

	"plumbline/catalog"
)

// This file gathers what the pages show, once, from the catalogue and the
// tools: every cross-reference (which reports offer a metric, which metrics
// read a source) is computed here, not in templates.

type index struct {
	Reports  []*reportInfo
	Orphans  []*metricInfo // metrics no catalogue report offers
	Metrics  []*metricInfo
	Tools    []toolInfo
	Concepts []conceptInfo
	Periods  []*catalog.Period
	Sources  []*sourceInfo
	Bases    []*catalog.Basis
	Roster   []rosterInfo
}

type reportInfo struct {
	*catalog.Report
	Metrics []*metricInfo
	Default map[string]bool
}

type metricInfo struct {
	*catalog.Metric
	Formula string
	Settles string
	Parts   []partInfo
	Sources []*sourceInfo
	Reports []string // catalogue reports offering it
	Tools   []string // other tools that take it (canned reports)
}

type partInfo struct {
	Role     string // "sum", "numerator" or "denominator"
	Relation string
	SourceID string
	Expr     string
}

type toolInfo struct {
	Name, Title, Description string
	Catalogue                bool // a report declared in the catalogue
}

type conceptInfo struct {
	*catalog.Concept
	Metrics []*metricInfo
}

type sourceInfo struct {
	*catalog.Source
	Settles string
	Metrics []*metricInfo
	Grant   *Grant // nil: no grant file yet
}

type rosterInfo struct {
	Role, Relation string
	Grant          *Grant
}

func (s *Site) index() *index {
	c := s.Catalog
	idx := &index{Bases: c.Bases()}
	sources := map[string]*sourceInfo{}
	for _, src := range c.Sources() {
		si := &sourceInfo{Source: src, Settles: "a day is " + src.Settles.String(), Grant: s.Grants[src.Relation]}
		sources[src.ID] = si
		idx.Sources = append(idx.Sources, si)
	}
	metrics := map[string]*metricInfo{}
	for _, m := range c.Metrics() {
		mi := &metricInfo{Metric: m, Formula: m.Formula(), Settles: "a day is " + m.Settles().String()}
		for i, p := range m.Parts() {
			role := "sum"
			if m.IsRatio() {
				role = []string{"numerator", "denominator"}[i]
			}
			mi.Parts = append(mi.Parts, partInfo{Role: role, Relation: p.Source.Relation, SourceID: p.Source.ID, Expr: p.Expr.String()})
		}
		for _, src := range m.Sources() {
			mi.Sources = append(mi.Sources, sources[src.ID])
			sources[src.ID].Metrics = append(sources[src.ID].Metrics, mi)
		}
		metrics[m.ID] = mi
		idx.Metrics = append(idx.Metrics, mi)
	}
	for _, rep := range c.Reports() {
		ri := &reportInfo{Report: rep, Default: map[string]bool{}}
		for _, m := range rep.Metrics {
			ri.Metrics = append(ri.Metrics, metrics[m.ID])
			metrics[m.ID].Reports = append(metrics[m.ID].Reports, rep.ID)
		}
		for _, m := range rep.Defaults {
			ri.Default[m.ID] = true
		}
		idx.Reports = append(idx.Reports, ri)
	}
	for _, mi := range idx.Metrics {
		if len(mi.Reports) == 0 {
			idx.Orphans = append(idx.Orphans, mi)
		}
	}
	s.linkTools(idx, metrics)
	for _, con := range c.Concepts() {
		ci := conceptInfo{Concept: con}
		for _, mi := range idx.Metrics {
			if mi.Concept == con {
				ci.Metrics = append(ci.Metrics, mi)
			}
		}
		idx.Concepts = append(idx.Concepts, ci)
	}
	idx.Periods = c.Periods()
	r := c.Roster()
	for _, x := range []struct{ role, rel string }{
		{"teams", r.Teams.Relation}, {"agents", r.Agents.Relation},
		{"team history (who is on which team on a day)", r.TeamHistory.Relation},
		{"floor history (which teams count as the floor on a day)", r.FloorHistory.Relation},
	} {
		idx.Roster = append(idx.Roster, rosterInfo{Role: x.role, Relation: x.rel, Grant: s.Grants[x.rel]})
	}
	return idx
}

// linkTools lists every tool, and for each metric the tools beyond the
// catalogue's reports (canned reports) whose answers carry its figures.
func (s *Site) linkTools(idx *index, metrics map[string]*metricInfo) {
	for _, t := range s.Tools {
		_, isReport := s.Catalog.Report(t.Name)
		idx.Tools = append(idx.Tools, toolInfo{Name: t.Name, Title: t.Title, Description: t.Description, Catalogue: isReport})
		if isReport {
			continue
		}
		for _, id := range t.Metrics {
			if mi, ok := metrics[id]; ok {
				mi.Tools = append(mi.Tools, t.Name)
			}
		}
	}
}

// searchEntry is one thing the search box can find.
type searchEntry struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
	URL   string `json:"url"` // from the site's root
}

func (idx *index) search() []searchEntry {
	var out []searchEntry
	for _, m := range idx.Metrics {
		out = append(out, searchEntry{Kind: "metric", ID: m.ID, Title: m.Label, Text: m.Definition() + " " + m.Formula, URL: "metrics/" + m.ID + ".html"})
	}
	for _, r := range idx.Reports {
		out = append(out, searchEntry{Kind: "report", ID: r.ID, Title: r.Title, Text: r.Description, URL: "index.html#report-" + r.ID})
	}
	for _, c := range idx.Concepts {
		out = append(out, searchEntry{Kind: "concept", ID: c.ID, Title: c.ID, Text: c.Text, URL: "concepts.html#concept-" + c.ID})
	}
	for _, src := range idx.Sources {
		out = append(out, searchEntry{Kind: "source", ID: src.ID, Title: src.Relation, Text: src.Description, URL: "sources.html#source-" + src.ID})
	}
	slices.SortStableFunc(out, func(a, b searchEntry) int { return kindRank(a.Kind) - kindRank(b.Kind) })
	return out
}

func kindRank(kind string) int {
	return slices.Index([]string{"metric", "report", "concept", "source"}, kind)
}
