package reports

import (
	"math"
	"strconv"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/directory"
)

// This file holds the response contract: the JSON every report answers with.

// ReportAnswer is the answer of a report tool.
type ReportAnswer struct {
	RequestID string   `json:"request_id"`
	Request   Echo     `json:"request"`
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Truncated bool     `json:"truncated"`
	Governed
}

// CannedAnswer is the answer of a canned report: labelled sections of
// figures, with each definition stated once.
type CannedAnswer struct {
	RequestID string     `json:"request_id"`
	Request   Echo       `json:"request"`
	Sections  []*Section `json:"sections"`
	Governed
}

// Section is one labelled table of a canned report. Total, when present,
// is the section's total over its rows, summed from the same parts.
type Section struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Total     []any    `json:"total,omitempty"`
	Truncated bool     `json:"truncated"`
}

// Governed is what every answer with figures carries beside them: what
// each figure means, how far its data runs, whether it is partial, and the
// notes to pass on.
type Governed struct {
	Metrics map[string]*MetricInfo `json:"metrics"`
	Period  PeriodInfo             `json:"period"`
	// PreviousPeriod is the period compare_to set the figures beside.
	PreviousPeriod *PeriodInfo            `json:"previous_period,omitempty"`
	DataThrough    map[string]DataThrough `json:"data_through"`
	Notes          []string               `json:"notes"`
	// NoteRefs name the standing notes a caller holding this catalogue's
	// texts (known_definitions) already has, as ID@catalog_version, in
	// place of their text (metric_definitions has every one).
	NoteRefs       []string `json:"note_refs,omitempty"`
	Partial        bool     `json:"partial"`
	PartialMetrics []string `json:"partial_metrics"`
	CatalogVersion string   `json:"catalog_version"`
}

// MetricInfo is what a figure means and how fresh it is.
type MetricInfo struct {
	Label         string      `json:"label"`
	Unit          string      `json:"unit"`
	Definition    string      `json:"definition,omitempty"`
	DefinitionRef string      `json:"definition_ref,omitempty"`
	Formula       string      `json:"formula,omitempty"`
	Source        string      `json:"source,omitempty"`
	SalesBasis    string      `json:"sales_basis,omitempty"`
	DataThrough   DataThrough `json:"data_through"`
	// LeftOut counts the agent-days left out of the figures because a part
	// was not known (hours not in, approval not settled).
	LeftOut int64 `json:"left_out,omitempty"`
	// Partial says the figures are partial: listed in partial_metrics.
	Partial bool `json:"partial,omitempty"`
	// Target, when the answer sets the metric beside targets, says which
	// days its figures and its targets cover.
	Target *TargetDays `json:"target,omitempty"`
}

// PeriodInfo is a resolved period.
type PeriodInfo struct {
	Start    string `json:"start"`
	End      string `json:"end"`
	Days     int    `json:"days"`
	TimeZone string `json:"time_zone"`
	Named    string `json:"named,omitempty"`
	// AskedEnd is the end asked for, when the period so far was cut at its
	// last final day to be compared (see Period.AskedEnd).
	AskedEnd string `json:"asked_end,omitempty"`
}

// Echo is the request as the server understood it.
type Echo struct {
	Tool          string    `json:"tool"`
	Who           *WhoEcho  `json:"who,omitempty"`
	Day           string    `json:"day,omitempty"`
	Weeks         int       `json:"weeks,omitempty"`
	Metrics       []string  `json:"metrics,omitempty"`
	GroupBy       string    `json:"group_by,omitempty"`
	TopN          int       `json:"top_n,omitempty"`
	Sort          *SortEcho `json:"sort,omitempty"`
	Compact       bool      `json:"compact,omitempty"`
	CompareCounts bool      `json:"compare_counts,omitempty"`
	CompareTo     string    `json:"compare_to,omitempty"`
	Cumulative    bool      `json:"cumulative,omitempty"`
	RankBy        string    `json:"rank_by,omitempty"`
}

// WhoEcho is a resolved who: names come from the directory, never from the
// call.
type WhoEcho struct {
	Kind string `json:"kind"`
	Key  string `json:"key,omitempty"`
	Name string `json:"name"`
	Team string `json:"team,omitempty"`
}

// SortEcho is a sort as applied.
type SortEcho struct {
	Metric    string `json:"metric"`
	Direction string `json:"direction"`
}

// CandidatesAnswer lists the people or teams a name matched, and no figures.
type CandidatesAnswer struct {
	RequestID      string                `json:"request_id"`
	Argument       string                `json:"argument"`
	Candidates     []directory.Candidate `json:"candidates"`
	Notes          []string              `json:"notes"`
	CatalogVersion string                `json:"catalog_version"`
}

// RefusalAnswer is the answer to a call that was refused.
type RefusalAnswer struct {
	RequestID string       `json:"request_id"`
	Error     *ask.Refusal `json:"error"`
}

func periodInfo(p ask.Period, zone *time.Location) PeriodInfo {
	info := PeriodInfo{
		Start: p.Start.Format(time.DateOnly), End: p.End.Format(time.DateOnly),
		Days: p.Days(), TimeZone: zone.String(), Named: p.Named,
	}
	if !p.AskedEnd.IsZero() {
		info.AskedEnd = p.AskedEnd.Format(time.DateOnly)
	}
	return info
}

func whoEcho(s ask.Scope, dir *directory.Directory) *WhoEcho {
	w := &WhoEcho{Kind: s.Kind, Key: s.Key, Name: s.Name}
	if t, ok := dir.Team(s.Team); ok && s.Kind == ask.ScopeAgent {
		w.Team = t.Name
	}
	return w
}

// columnsFor names a plan's columns: the group's key (and its name for teams
// and agents, its count of the period's days for weeks), then each metric,
// each ratio followed by its summed numerator and denominator.
func columnsFor(groupBy string, metrics []*catalog.Metric) []string {
	cols := keyColumns(groupBy)
	for _, m := range metrics {
		cols = append(cols, m.ID)
		if m.IsRatio() {
			cols = append(cols, m.ID+"_numerator", m.ID+"_denominator")
		}
	}
	return cols
}

// keyColumns names the columns that say which group a row is.
func keyColumns(groupBy string) []string {
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

// rowFor renders one result row of a period under columnsFor's columns.
func rowFor(groupBy string, r ask.Row, metrics []*catalog.Metric, dir *directory.Directory, p ask.Period) []any {
	out := keyCells(groupBy, r, dir, p)
	i := 0
	for _, m := range metrics {
		n := len(m.Parts())
		out = append(out, cellsOf(m, r.Sums[i:i+n])...)
		i += n
	}
	return out
}

// keyCells renders the cells under keyColumns.
func keyCells(groupBy string, r ask.Row, dir *directory.Directory, p ask.Period) []any {
	switch groupBy {
	case catalog.GroupTeam:
		t, _ := dir.Team(r.Key)
		return []any{r.Key, Nullable(t.Name)}
	case catalog.GroupAgent:
		a, _ := dir.Agent(r.Key)
		return []any{r.Key, Nullable(a.Name)}
	case catalog.GroupDay:
		return []any{r.Key}
	case catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
		return []any{r.Key, bucketDays(groupBy, r.Key, p)}
	}
	return nil
}

// cellsOf renders one metric's summed parts: its figure, and a ratio's
// parts beside it.
func cellsOf(m *catalog.Metric, sums []*float64) []any {
	out := []any{Figure(m, sums)}
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
	return round(*v, 2)
}

// part renders a ratio's summed numerator or denominator.
func part(v *float64) any {
	if v == nil {
		return nil
	}
	return round(*v, 2)
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

func round(v float64, places int) float64 {
	p := math.Pow10(places)
	return math.Round(v*p) / p
}
