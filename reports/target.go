package reports

import (
	"slices"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/directory"
	"plumbline/reports/grammar"
	"plumbline/reports/target"
)

// This file is the engine's side of setting figures beside their targets
// (compare_to: "target"), whose rules are package target's: how far each
// metric's sources are loaded, and a league ranked by attainment.

// NoteRankedByAttainment says how a league ranked by attainment reads.
const NoteRankedByAttainment = "With rank_by attainment, teams are ranked by the sort metric's attainment against their own targets (figure over target, or for a rate the gap in points), " +
	"each over its own days on the floor; a team without a target comes last, without a rank, and tied attainments share a rank."

// loaded says how far a metric's sources are loaded, given the sources'
// coverage: the days a target.Comparison counts.
func (e *Engine) loaded(cov map[string]ask.Coverage, now time.Time) func(*catalog.Metric) ask.Coverage {
	return func(m *catalog.Metric) ask.Coverage { return metricCoverage(m, cov, now, e.cat.Zone()) }
}

// rankedByAttainment renders team rows over period p beside their targets,
// ranked by the attainment of the sort's metric in its direction: teams
// without a target last and unranked, ties by team, tied attainments
// sharing a rank and the next rank skipping their places.
func rankedByAttainment(tg *target.Comparison, kept []ask.Row, metrics []*catalog.Metric, sort *grammar.SortArg, dir *directory.Directory, p ask.Period) [][]any {
	m := metrics[slices.IndexFunc(metrics, func(m *catalog.Metric) bool { return m.ID == sort.Metric })]
	col := slices.Index(tg.Columns(metrics), target.AttainmentColumn(m))
	type line struct {
		key   string
		cells []any
		v     *float64
	}
	lines := make([]line, len(kept))
	for i, r := range kept {
		cells := tg.Beside(r, metrics, r.Key)
		l := line{key: r.Key, cells: append(appendKeyCells(nil, catalog.GroupTeam, r, dir, p), cells...)}
		if v, ok := cells[col].(float64); ok {
			l.v = &v
		}
		lines[i] = l
	}
	slices.SortStableFunc(lines, func(a, b line) int {
		if c := compareValues(a.v, b.v, sort.Direction); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	rows := make([][]any, len(lines))
	for i, l := range lines {
		var rank any
		switch {
		case l.v == nil:
		case i > 0 && compareValues(l.v, lines[i-1].v, sort.Direction) == 0:
			rank = rows[i-1][0]
		default:
			rank = i + 1
		}
		rows[i] = append([]any{rank}, l.cells...)
	}
	return rows
}
