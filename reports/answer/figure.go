package answer

import (
	"math"
	"strconv"

	"plumbline/catalog"
)

// Columns names a table's columns: the group's key (and its name for teams
// and agents, its count of the period's days for weeks, months and
// quarters; see [KeyColumns]), then each metric, each ratio followed by
// its summed numerator and denominator.
func Columns(groupBy string, metrics []*catalog.Metric) []string {
	keys := KeyColumns(groupBy)
	// Room for every metric to be a ratio, with its parts.
	cols := append(make([]string, 0, len(keys)+3*len(metrics)), keys...)
	for _, m := range metrics {
		cols = append(cols, m.ID)
		if m.IsRatio() {
			cols = append(cols, m.ID+"_numerator", m.ID+"_denominator")
		}
	}
	return cols
}

// KeyColumns names the columns that say which group (by groupBy) a row is.
func KeyColumns(groupBy string) []string {
	switch groupBy {
	case catalog.GroupTeam:
		return []string{"team", "team_name"}
	case catalog.GroupAgent:
		return []string{"agent", "agent_name"}
	case catalog.GroupDay:
		return []string{groupBy}
	case catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
		return []string{groupBy, "days"}
	}
	return nil
}

// AppendCells appends to out one metric's summed parts rendered under its
// columns: its figure, and a ratio's parts beside it.
func AppendCells(out []any, m *catalog.Metric, sums []*float64) []any {
	out = append(out, Figure(m, sums))
	if m.IsRatio() {
		out = append(out, part(sums[0]), part(sums[1]))
	}
	return out
}

// Figure is metric m's figure from its summed parts (see [ask.Plan.Span]) as an
// answer states it: a count whole (int64), hours to the hundredth, a ratio
// to six significant digits (float64); nil when there is no data or nothing
// to divide by.
func Figure(m *catalog.Metric, parts []*float64) any {
	if m.IsRatio() {
		return ratio(m.Unit, parts[0], parts[1])
	}
	return figure(m.Unit, parts[0])
}

// Nullable is s, or nil (null) for an empty string: a text an answer may
// lack.
func Nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// figure renders a sum in its unit: counts as whole numbers, hours to the
// hundredth. A nil sum (no data) stays null.
func figure(unit string, v *float64) any {
	if v == nil {
		return nil
	}
	if unit == catalog.UnitCount {
		return int64(math.Round(*v))
	}
	return Round(*v, 2)
}

// part renders a ratio's summed numerator or denominator.
func part(v *float64) any {
	if v == nil {
		return nil
	}
	return Round(*v, 2)
}

// ratio divides summed parts. It is null when either part is null or the
// denominator is zero: there is nothing to divide by. Ratios keep six
// significant digits, so different answers never look alike.
func ratio(_ string, num, den *float64) any {
	if num == nil || den == nil || *den == 0 {
		return nil
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(*num / *den, 'g', 6, 64), 64)
	return v
}

// Round rounds v to places decimal places, half away from zero, as an
// answer's hours, parts and targets are written.
func Round(v float64, places int) float64 {
	p := math.Pow10(places)
	return math.Round(v*p) / p
}

// Unsigned writes a zero change as 0, never -0.
func Unsigned(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}
