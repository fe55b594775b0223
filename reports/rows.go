package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/directory"
	"plumbline/reports/grammar"
)

// This file turns a store's rows into the rows an answer shows: every group
// in scope listed, a group without rows filled with zero where its days were
// loaded (no activity) and left null where they were not (no data), ranked
// when asked, and cut without splitting a tie silently.

// groupKeys lists, for groupings by team or agent, the groups a plan's
// answer shows: every group in scope, and every group with rows.
func groupKeys(plan *ask.Plan, res *ask.Result, dir *directory.Directory) []string {
	if plan.GroupBy != catalog.GroupTeam && plan.GroupBy != catalog.GroupAgent {
		return nil
	}
	groups := dir.GroupsInScope(plan.Scope, plan.GroupBy, plan.Period)
	keys := make([]string, len(groups), len(groups)+len(res.Rows))
	copy(keys, groups)
	for _, r := range res.Rows {
		keys = append(keys, r.Key)
	}
	return keys
}

// fill returns the plan's groups with their figures: the store's rows and,
// for groupings by team or agent, every group in scope that had none, and
// the groups extra names (those of the period it is compared with).
func fill(plan *ask.Plan, res *ask.Result, dir *directory.Directory, stints []directory.Stint, cov map[string]ask.Coverage, now time.Time, extra []string) []ask.Row {
	zone := plan.Catalog.Zone()
	rows := res.Rows
	if plan.GroupBy == catalog.GroupTeam || plan.GroupBy == catalog.GroupAgent {
		rows = everyGroup(plan, res, dir, extra)
	}
	parts := plan.NumParts()
	for i := range rows {
		r := &rows[i]
		r.Sums = padded(r.Sums, parts)
		r.Kept, r.LeftOut = padded(r.Kept, len(plan.Metrics)), padded(r.LeftOut, len(plan.Metrics))
		p := 0
		for j, m := range plan.Metrics {
			n := len(m.Parts())
			if r.Kept[j] == 0 {
				c := metricCoverage(m, cov, now, zone)
				first, last := calendar.Later(c.First, plan.Period.Start), calendar.Earlier(c.Through, plan.Period.End)
				var v *float64
				if r.LeftOut[j] == 0 && !c.Through.IsZero() && covered(dir, stints, plan.GroupBy, r.Key, first, last) {
					v = new(float64)
				}
				for k := p; k < p+n; k++ {
					r.Sums[k] = v
				}
			}
			p += n
		}
	}
	return rows
}

// everyGroup returns, in order of key, the store's rows and a row without
// sums for each group in scope, or named by extra, that has none: at most
// Limit of them unless the plan is ranked. It orders res.Rows by key in
// place, and makes a new list only when some group has no row: on a
// floor, every team's row is usually there.
func everyGroup(plan *ask.Plan, res *ask.Result, dir *directory.Directory, extra []string) []ask.Row {
	byKey := func(r ask.Row, key string) int { return strings.Compare(r.Key, key) }
	rows := res.Rows
	slices.SortFunc(rows, func(a, b ask.Row) int { return byKey(a, b.Key) })
	var missing []string
	for _, keys := range [][]string{dir.GroupsInScope(plan.Scope, plan.GroupBy, plan.Period), extra} {
		for _, k := range keys {
			if _, found := slices.BinarySearchFunc(rows, k, byKey); !found {
				missing = append(missing, k)
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		missing = slices.Compact(missing)
		all := make([]ask.Row, 0, len(rows)+len(missing))
		i := 0
		for _, k := range missing {
			for ; i < len(rows) && rows[i].Key < k; i++ {
				all = append(all, rows[i])
			}
			all = append(all, ask.Row{Key: k})
		}
		rows = append(all, rows[i:]...)
	}
	if !plan.Ranked && len(rows) > plan.Limit {
		rows = rows[:plan.Limit]
	}
	return rows
}

func padded[T any](s []T, n int) []T {
	if len(s) >= n {
		return s
	}
	return append(s, make([]T, n-len(s))...)
}

// value is a row's figure for the metric at index j of metrics, for ranking:
// a sum, or a ratio divided from its parts. Nil is no figure.
func value(r ask.Row, metrics []*catalog.Metric, j int) *float64 {
	i, _ := (&ask.Plan{Metrics: metrics}).Span(j)
	if !metrics[j].IsRatio() {
		return r.Sums[i]
	}
	num, den := r.Sums[i], r.Sums[i+1]
	if num == nil || den == nil || *den == 0 {
		return nil
	}
	v := *num / *den
	return &v
}

// rank orders rows by a metric, nulls last, ties by key: the order SQL
// gives with ORDER BY metric DIRECTION NULLS LAST, key.
func rank(rows []ask.Row, metrics []*catalog.Metric, sort *grammar.SortArg) {
	j := slices.IndexFunc(metrics, func(m *catalog.Metric) bool { return m.ID == sort.Metric })
	slices.SortStableFunc(rows, func(a, b ask.Row) int {
		if c := compareValues(value(a, metrics, j), value(b, metrics, j), sort.Direction); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
}

// compareValues orders two figures in a direction, nulls last.
func compareValues(a, b *float64, direction string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	case direction == "asc":
		return cmp.Compare(*a, *b)
	default:
		return cmp.Compare(*b, *a)
	}
}

// cutRows keeps the first n of ranked rows, and the rows tied with the last
// one kept (SQL's FETCH FIRST n ROWS WITH TIES), up to max. It says how many
// rows the ties added, and whether max split a tie.
func cutRows(rows []ask.Row, metrics []*catalog.Metric, sort *grammar.SortArg, n, max int) (kept []ask.Row, tied int, split bool) {
	if len(rows) <= n {
		return rows, 0, false
	}
	if sort == nil {
		return rows[:n], 0, false
	}
	j := slices.IndexFunc(metrics, func(m *catalog.Metric) bool { return m.ID == sort.Metric })
	same := func(a, b ask.Row) bool {
		return compareValues(value(a, metrics, j), value(b, metrics, j), sort.Direction) == 0
	}
	end := n
	for end < len(rows) && end < max && same(rows[end], rows[n-1]) {
		end++
	}
	split = end < len(rows) && same(rows[end], rows[end-1])
	return rows[:end], end - n, split
}

// cutBuckets names the weeks, months or quarters (by groupBy) a period
// cuts, with the days of the period they hold.
func cutBuckets(groupBy string, rows []ask.Row, p ask.Period) []string {
	var out []string
	for _, r := range rows {
		first, _ := calendar.ParseDate(r.Key)
		last := calendar.BucketEnd(groupBy, first)
		from, to := calendar.Later(first, p.Start), calendar.Earlier(last, p.End)
		if days, whole := calendar.DaysBetween(from, to)+1, calendar.DaysBetween(first, last)+1; days < whole {
			span := from.Format(time.DateOnly)
			if days > 1 {
				span += " to " + to.Format(time.DateOnly)
			}
			out = append(out, fmt.Sprintf("the %s of %s holds only %s (%d of %d days)", groupBy, r.Key, span, days, whole))
		}
	}
	return out
}
